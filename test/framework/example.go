package framework

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ProgressiveExample is examples/progressive/appset.yaml as it is, but for where it deploys
// from and to — the loopback git server (path guestbook/<version>, holding a Workload) and
// one namespace per cluster, as every "cluster" here is the same API server — and the
// health service it checks, health (its per-cluster check asks health/guestbook/<cluster>).
func ProgressiveExample(repoURL, health, version string) (string, error) {
	b, err := os.ReadFile(filepath.Join(RepoRoot(), "examples", "progressive", "appset.yaml"))
	if err != nil {
		return "", fmt.Errorf("read the progressive example: %w", err)
	}
	spec := string(b)
	for from, to := range map[string]string{
		"repoURL: https://github.com/argoproj/argocd-example-apps.git": "repoURL: " + repoURL,
		"path: guestbook":      "path: guestbook/" + version,
		"namespace: guestbook": "namespace: '{{name}}'",
	} {
		if strings.Count(spec, from) != 1 {
			return "", fmt.Errorf("the progressive example no longer has %q once", from)
		}
		spec = strings.Replace(spec, from, to, 1)
	}
	const healthURL = "https://health.example.com/"
	if strings.Count(spec, healthURL) != 2 {
		return "", fmt.Errorf("the progressive example no longer checks %s in its two first phases", healthURL)
	}
	return strings.ReplaceAll(spec, healthURL, strings.TrimSuffix(health, "/")+"/"), nil
}
