package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ProgressiveExample is examples/progressive/appset.yaml as it is, but for where it deploys
// from and to: the loopback git server (path guestbook/<version>, holding a Workload) and
// one namespace per cluster, as every "cluster" here is the same API server.
func ProgressiveExample(repoURL, version string) (string, error) {
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
	return spec, nil
}

// AnnotateHealth gives each cluster Secret the health URL the progressive example checks:
// base/<cluster name>.
func (e *Env) AnnotateHealth(ctx context.Context, base string) error {
	for _, c := range e.Clusters {
		patch := `{"metadata":{"annotations":{"guestbook-health-url":"` + base + `/` + c.Name + `"}}}`
		if _, err := e.Kube.CoreV1().Secrets(ArgoNamespace).Patch(ctx, "cluster-"+c.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("annotate cluster %s: %w", c.Name, err)
		}
	}
	return nil
}
