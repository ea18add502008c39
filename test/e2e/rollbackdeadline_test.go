//go:build e2e

package e2e

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestARollbackThatCannotSettleStopsAtProgressDeadline: v2 is Degraded on prod-2 and its
// workload is an immutable ConfigMap everywhere, so the prod phase fails, rolls back, and
// prod-2 cannot return to v1 (the API server refuses the change of an immutable
// ConfigMap: the return sync fails). With progressDeadline on the prod phases the rollout
// stops once the returning phase's deadline passes, instead of staying RollingBack forever:
// Stopped, the reason naming the child and the deadline, a RolloutStopped Warning Event,
// and nobody else moved (the earlier phases stay on v2).
//
// Its failure hooks run each once, when their cause comes: prod's onFailure hook when prod
// fails, the rollout's rollbackHooks when the rollback starts, its stopHooks when the
// rollback stops; prod-half, returned but not failed, runs none.
func TestARollbackThatCannotSettleStopsAtProgressDeadline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	r := newPhased(t, "rb-deadline", "rollback")
	r.edit = func(s string) string {
		s = strings.ReplaceAll(s, "        onFailure:\n          action: rollback\n",
			"        progressDeadline: 90s\n        onFailure:\n          action: rollback\n          hooks:\n          - {name: incident, type: http, http: {url: '"+srv.URL+"/incident'}}\n")
		return strings.Replace(s, "      type: phaseDeployment\n", "      type: phaseDeployment\n      onFailure:\n"+
			"        rollbackHooks:\n        - {name: undo, type: http, http: {url: '"+srv.URL+"/undo'}}\n"+
			"        stopHooks:\n        - {name: page, type: http, http: {url: '"+srv.URL+"/page'}}\n", 1)
	}
	defer r.agent("agent-rb-deadline", nil, "--hook-allow-private").Stop(5 * time.Second)
	r.firstDeployment(ctx, framework.DegradedWorkload(r.name, "v2", "prod-2")+"immutable: true\n")
	r2 := r.commit("v2", nil)
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	r.waitState("prod starts returning", func(st *state.State) bool {
		return st.Rollout != nil && st.Rollout.Revision == r2 && st.Rollout.Status == rollout.StatusRollingBack
	})
	want := everywhere("v2")
	delete(want, "prod-2") // it neither stays Healthy on v2 nor returns
	r.until("the rollback stops at the returning phase's progressDeadline", r2, rollout.StatusStopped, want)
	st, _ := r.state(ctx)
	for _, s := range []string{"rollback stopped", "phase prod", r.name + "-prod-2", "progressDeadline 1m30s"} {
		if !strings.Contains(st.Rollout.Reason, s) {
			t.Fatalf("the reason %q lacks %q", st.Rollout.Reason, s)
		}
	}
	last := st.Rollout.Phases[len(st.Rollout.Phases)-1]
	if last.Status != rollout.PhaseErrored || last.Clusters[r.name+"-prod-2"].Status != rollout.ClusterErrored {
		t.Fatalf("the returning phase and its child are Errored: %+v", last)
	}
	r.eventually(rollout.EvRolloutStopped)
	r.waitState("the stop hook's outcome is recorded", func(st *state.State) bool {
		return st.Rollout.Phases[len(st.Rollout.Phases)-1].Hooks["stop/page"].Status == state.HookSucceeded
	})
	st, _ = r.state(ctx)
	for key, run := range st.Rollout.Phases[len(st.Rollout.Phases)-1].Hooks {
		if run.Status != state.HookSucceeded {
			t.Errorf("failure hook %s: %+v", key, run)
		}
	}
	for _, path := range []string{"/incident", "/undo", "/page"} {
		if n := len(rec.seen(path)); n != 1 {
			t.Errorf("%s was called %d times, want once: %v", path, n, rec.seen("/"))
		}
	}
}
