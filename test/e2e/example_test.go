//go:build e2e

package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestTheProgressiveExampleRunsToCompletion takes examples/progressive as it is, but for
// where it deploys from and to (the loopback git server and one namespace per cluster, as
// every "cluster" here is the same API server) and for its health service (a test
// server), and runs it to completion: dev, staging, prod, with their
// checks and soaks.
func TestTheProgressiveExampleRunsToCompletion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	health := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer health.Close()
	spec, err := framework.ProgressiveExample(env.Git.URL, health.URL, "v1")
	if err != nil {
		t.Fatal(err)
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
