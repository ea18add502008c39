//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestTheRolloutMetricsOfAThreePhaseRun: a real agent walks v2 through three phases (dev,
// staging with its 10 s soak, prod). Its /metrics then hold one more Completed rollout
// whose duration — read from the state's times — is at most the wall time the test
// measured from the commit to seeing the rollout completed, and not much less (the parent
// noticing the commit and the test's polling are all that lie outside it); three more
// phase ends; two trigger latencies (dev → staging, staging → prod); syncs the agent
// started as it moved the children, and refreshes of the parent its poll asked for.
func TestTheRolloutMetricsOfAThreePhaseRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "metered", "stop")
	r.edit = func(s string) string { // three phases: no prod-half
		i, j := strings.Index(s, "      - name: prod-half\n"), strings.Index(s, "      - name: prod\n")
		return s[:i] + s[j:]
	}
	defer r.agent("agent-metered", nil, "--poll-parents", "2s").Stop(5 * time.Second) // a poll within the run
	r.firstDeployment(ctx, framework.Workload(r.name, "v2"))

	count, sum := `cmp_phase_rollout_duration_seconds_count{result="Completed",rollout="metered"}`, `cmp_phase_rollout_duration_seconds_sum{result="Completed",rollout="metered"}`
	phases := `cmp_phase_phase_duration_seconds_count{result="Succeeded",rollout="metered"}`
	triggers := `cmp_phase_trigger_latency_seconds_count{rollout="metered"}`
	syncs := `cmp_phase_syncs_total{rollout="metered"}`
	refreshes := `cmp_phase_refreshes_total{rollout="metered",target="parent"}`
	sample := r.counter
	count0, sum0, phases0, triggers0, syncs0, refreshes0 := sample(count), sample(sum), sample(phases), sample(triggers), sample(syncs), sample(refreshes)
	if count0 != 1 || phases0 != 3 {
		t.Fatalf("after the first deployment: %v rollouts and %v phases Completed, want 1 and 3", count0, phases0)
	}

	began := time.Now()
	r2 := r.commit("v2", nil)
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	r.until("v2 completes through three phases", r2, rollout.StatusCompleted, everywhere("v2"))
	wall := time.Since(began).Seconds()

	took := sample(sum) - sum0
	t.Logf("v2: the histogram says %.1f s, the test measured %.1f s", took, wall)
	if n := sample(count) - count0; n != 1 {
		t.Fatalf("the rollout's end observed %v times, want once", n)
	}
	// staging soaks 10 s inside the rollout; the rollout starts after the commit and ends
	// before the test sees it ended (1 s: Argo CD's and the state's clocks are one machine's)
	if took < 10 || took > wall+1 || wall-took > 90 {
		t.Fatalf("the rollout took %.1f s by its state's times, the test measured %.1f s", took, wall)
	}
	if n := sample(phases) - phases0; n != 3 {
		t.Errorf("%v phase ends observed, want 3", n)
	}
	if n := sample(triggers) - triggers0; n != 2 {
		t.Errorf("%v trigger latencies observed, want 2 (dev → staging, staging → prod)", n)
	}
	if sample(syncs) <= syncs0 {
		t.Errorf("no sync counted: %v", sample(syncs))
	}
	if sample(refreshes) <= refreshes0 {
		t.Errorf("no parent refresh counted during v2's rollout (the agent polls its parent every 2 s): %v", sample(refreshes))
	}
	if n := r.counter(`cmp_phase_refreshes_total{rollout="metered",target="child"}`); n != 0 {
		t.Errorf("%v child refreshes: the agent asks none", n)
	}
}
