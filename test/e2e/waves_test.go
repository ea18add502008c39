//go:build e2e

package e2e

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestAPhaseDeploymentPhaseRollsOutInWaves: seed 000's dialect with waves on the dev phase
// (batchSize 1, batchWait 20s, batchChecks with a phase check). v2 reaches dev-1 alone; the
// check runs on that batch (slo@batch-1) and passes; dev-2 is admitted only once dev-1 has
// stayed settled 20 s; the rollout completes everywhere, each live child carrying its
// position (cmp-phase.io/position).
func TestAPhaseDeploymentPhaseRollsOutInWaves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	r := newPhased(t, "waves", "stop")
	r.edit = func(s string) string {
		return strings.Replace(s, "      - name: dev\n", "      - name: dev\n        batchSize: 1\n        batchWait: 20s\n        batchChecks: true\n"+
			"        checks:\n        - {name: slo, type: http, http: {url: '"+srv.URL+"/check/slo'}}\n", 1)
	}
	defer r.agent("agent-waves", nil, "--hook-allow-private").Stop(5 * time.Second)
	r.firstDeployment(ctx, framework.Workload(r.name, "v2"))
	r2 := r.commit("v2", nil)
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	st := r.waitState("v2 admits dev-1 alone", func(st *state.State) bool {
		return st.Rollout.Revision == r2 && len(st.Rollout.Phases[0].Admitted) > 0
	})
	if got := st.Rollout.Phases[0].Admitted; !slices.Equal(got, []string{r.name + "-dev-1"}) {
		t.Fatalf("the first wave is %v, want dev-1 alone", got)
	}
	r.until("v2 completes in waves", r2, rollout.StatusCompleted, everywhere("v2"))
	st, _ = r.state(ctx)
	dev := st.Rollout.Phases[0]
	first, second := dev.Clusters[r.name+"-dev-1"], dev.Clusters[r.name+"-dev-2"]
	if gap := second.AdmittedAt.Sub(first.SettledAt); gap < 20*time.Second {
		t.Fatalf("dev-2 was admitted %s after dev-1 settled, before the batchWait of 20s", gap)
	}
	var batch *state.HookRun
	for key, run := range dev.Hooks {
		if strings.Contains(key, "slo@batch-1") {
			batch = &run
		}
	}
	if batch == nil || batch.Status != state.HookSucceeded || batch.FinishedAt == nil || batch.FinishedAt.After(second.AdmittedAt) {
		t.Fatalf("the check on the first wave did not pass before dev-2 was admitted (%s): %+v in %v", second.AdmittedAt, batch, dev.Hooks)
	}
	r.syncedOnce(ctx, "v2")
	for cluster, want := range map[string]string{"dev-2": "phase=dev,index=1,count=4,rank=2", "prod-2": "phase=prod,index=4,count=4,rank=1"} {
		a, err := env.App(ctx, r.name+"-"+cluster)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Annotations[contract.AnnotationPosition]; got != want {
			t.Errorf("%s's live child is at %q, want %q", cluster, got, want)
		}
	}
}

// TestAMemberThatNeverBecomesHealthyEndsAtItsDeadline: v2 syncs on prod-1 but stays
// Progressing for ever. prod-half's progressDeadline ends the wait: prod-1 Errored, the
// phase's onFailure (stop) applies, the reason names the child and the deadline, and prod-2,
// never admitted, stays on v1.
func TestAMemberThatNeverBecomesHealthyEndsAtItsDeadline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "never-healthy", "stop")
	r.edit = func(s string) string {
		return strings.Replace(s, "      - name: prod-half\n", "      - name: prod-half\n        progressDeadline: 45s\n", 1)
	}
	defer r.agent("agent-never-healthy", nil).Stop(5 * time.Second)
	r.firstDeployment(ctx, framework.ProgressingWorkload(r.name, "v2", "prod-1"))
	r2 := r.commit("v2", nil)
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	want := everywhere("v2")
	delete(want, "prod-1") // synced, never Healthy
	want["prod-2"] = "v1"
	r.until("prod-half's deadline stops the rollout", r2, rollout.StatusStopped, want)
	st, _ := r.state(ctx)
	for _, s := range []string{r.name + "-prod-1", "progressDeadline 45s"} {
		if !strings.Contains(st.Rollout.Reason, s) {
			t.Fatalf("the reason %q lacks %q", st.Rollout.Reason, s)
		}
	}
	half := st.Rollout.Phases[2]
	if cs := half.Clusters[r.name+"-prod-1"]; half.Name != "prod-half" || cs.Status != rollout.ClusterErrored {
		t.Fatalf("prod-1 in %s: %+v", half.Name, cs)
	}
	if got := half.Clusters[r.name+"-prod-1"].SettledAt.Sub(*half.StartedAt); got < 45*time.Second {
		t.Fatalf("prod-1 was judged %s after prod-half started, before its deadline", got)
	}
}
