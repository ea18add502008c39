//go:build e2e

package freshinstall

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

var (
	getOpts  = metav1.GetOptions{}
	listOpts = metav1.ListOptions{}
)

// renderThroughTheSocket asks the sidecar, on the socket the manifests give it, for the
// first render of examples/progressive: the plan, from the inventory it reads with its own
// token.
func renderThroughTheSocket(t *testing.T, e *framework.Env) {
	t.Helper()
	c, err := e.DialPlugin()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	root := t.TempDir() // a repository holding the example only
	example, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "examples", "progressive", "appset.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "examples", "progressive"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "examples", "progressive", "appset.yaml"), example, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var docs []string
	for {
		docs, err = c.Render(ctx, root, filepath.Join(root, "examples", "progressive"),
			[]string{contract.EnvAppName + "=guestbook", contract.EnvAppNamespace + "=argocd", "ARGOCD_APP_SOURCE_PATH=examples/progressive"})
		if err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Second) // the socket appears once the sidecar has started
	}
	if err != nil {
		t.Fatalf("render through the installed sidecar: %v", err)
	}
	if len(docs) != 1 || !strings.Contains(docs[0], contract.PlanConfigMap("guestbook")) {
		t.Fatalf("the first render is the plan alone, got %d documents", len(docs))
	}
}

// uninstall follows docs/install.md's "Uninstalling" for an install of manifests/install:
// no parent to detach here (steps 1 and 2); step 3 applies Argo CD's install without the
// component, server-side as it was installed, so the fields only the component set go; step
// 4 deletes what cmp-phase wrote and its RBAC; step 5 the optional kustomizations.
func uninstall(t *testing.T, e *framework.Env) {
	t.Helper()
	kubectl(t, e, "apply", "--server-side", "--force-conflicts", "-n", "argocd", "-f", filepath.Join(e.Tools.ArgoDir, "install.yaml"))
	uninstallOurs(t, e)
	for _, k := range []string{"job-namespace", "observability", "admission"} {
		kubectl(t, e, "delete", "-k", filepath.Join(framework.RepoRoot(), "manifests", k), "--ignore-not-found")
	}
	// the namespace controller empties cmp-phase-jobs before it goes
	e.WaitFor(t, 2*time.Minute, "cmp-phase-jobs is gone", func(ctx context.Context) (bool, string) {
		_, err := e.Kube.CoreV1().Namespaces().Get(ctx, "cmp-phase-jobs", getOpts)
		return err != nil, "still there"
	})
}
