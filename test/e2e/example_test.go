package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestTheProgressiveExampleRunsToCompletion takes examples/progressive as it is, but for
// where it deploys from and to (the loopback git server and one namespace per cluster, as
// every "cluster" here is the same API server), annotates each cluster Secret with its
// health URL as the example asks, and runs it to completion: dev, staging, prod, with their
// checks and soaks.
func TestTheProgressiveExampleRunsToCompletion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := os.ReadFile("../../examples/progressive/appset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec := string(b)
	for from, to := range map[string]string{
		"repoURL: https://github.com/argoproj/argocd-example-apps.git": "repoURL: " + env.Git.URL,
		"path: guestbook":      "path: guestbook/v1",
		"namespace: guestbook": "namespace: '{{name}}'",
	} {
		if strings.Count(spec, from) != 1 {
			t.Fatalf("the example no longer has %q once", from)
		}
		spec = strings.Replace(spec, from, to, 1)
	}
	health := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer health.Close()
	for _, c := range env.Clusters {
		patch := `{"metadata":{"annotations":{"guestbook-health-url":"` + health.URL + `/` + c.Name + `"}}}`
		if _, err := env.Kube.CoreV1().Secrets("argocd").Patch(ctx, "cluster-"+c.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	r := newPhased(t, "guestbook", "rollback")
	if _, err := env.Git.Commit("guestbook: the progressive example", map[string]string{
		"guestbook/app/appset.yaml": spec, "guestbook/v1/cm.yaml": framework.Workload("guestbook", "v1")}); err != nil {
		t.Fatal(err)
	}
	rev, _ := revisionOf(t, spec)
	defer r.agent("agent-guestbook", nil, "--hook-allow-private").Stop(5 * time.Second)
	newParent(ctx, t, "guestbook", "guestbook/app", 0)
	r.until("the progressive example completes", rev, rollout.StatusCompleted, everywhere("v1"))
	st, _ := r.state(ctx)
	for _, ph := range st.Rollout.Phases[:2] {
		for key, run := range ph.Hooks {
			if run.Status != "Succeeded" {
				t.Errorf("phase %s hook %s: %s", ph.Name, key, run.Status)
			}
		}
		if len(ph.Hooks) != 2 {
			t.Errorf("phase %s ran %d checks, want one per cluster", ph.Name, len(ph.Hooks))
		}
	}
}
