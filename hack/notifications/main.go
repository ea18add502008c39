// Command notifications prints cmp-phase's argocd-notifications catalog (see package
// catalog); with -w it writes manifests/notifications/argocd-notifications-cm.yaml and
// manifests/helm/notifications-values.yaml. Run it from the repository's root:
// go run ./hack/notifications -w
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cmp-phase/cmp-phase/hack/notifications/catalog"
)

func main() {
	write := flag.Bool("w", false, "write "+catalog.ConfigMapPath+" and "+catalog.HelmValuesPath)
	flag.Parse()
	cm, helm := catalog.Generate()
	if !*write {
		fmt.Print(cm)
		return
	}
	for path, text := range map[string]string{catalog.ConfigMapPath: cm, catalog.HelmValuesPath: helm} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "notifications:", err, "(fix: run it from the repository's root)")
			os.Exit(1)
		}
	}
}
