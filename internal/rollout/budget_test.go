package rollout

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// budgetWorld is the three-phase world where dev and staging each tolerate one failure,
// under the rollout-wide budget b.
func budgetWorld(b spec.Size, stagingOnFailure string) *world {
	phases := threePhases()
	phases[0].MaxFailures, phases[1].MaxFailures = 1, 1
	if stagingOnFailure != "" {
		phases[1].OnFailure = stagingOnFailure
	}
	w := newWorld(phases...)
	w.plan.MaxFailures = b
	return w
}

// failOneInDevAndOneInStaging runs the world until dev-2 and staging-1 have failed: each
// within its phase's own maxFailures.
func (w *world) failOneInDevAndOneInStaging(t *testing.T) {
	t.Helper()
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.degrade("dev-2")
	w.step(t, 10)
	if w.st.Rollout.Phase != 1 {
		t.Fatalf("dev tolerates its one failure: %+v", w.st.Rollout)
	}
	w.syncs(15, "r2", "staging-1", "staging-2")
	w.degrade("staging-1")
	w.step(t, 20)
}

func TestTheRolloutWideBudgetAddsUpWhatThePhasesTolerated(t *testing.T) {
	cases := map[string]struct {
		budget     spec.Size
		onFailure  string
		wantMax    int
		wantStatus state.RolloutStatus
	}{
		"1: the second failure spends it, stop":       {spec.Size{Kind: spec.SizeCount, Value: 1}, "", 1, StatusStopped},
		"1: the second failure spends it, rollback":   {spec.Size{Kind: spec.SizeCount, Value: 1}, "rollback", 1, StatusRollingBack},
		"2: both tolerated, the rollout goes on":      {spec.Size{Kind: spec.SizeCount, Value: 2}, "", 2, StatusProgressing},
		"50% of 6 members is 3: goes on":              {spec.Size{Kind: spec.SizePercent, Value: 50}, "", 3, StatusProgressing},
		"20% of 6 members floors to 1: spent":         {spec.Size{Kind: spec.SizePercent, Value: 20}, "", 1, StatusStopped},
		"onFailure continue goes on past the budget":  {spec.Size{Kind: spec.SizeCount, Value: 1}, "continue", 1, StatusProgressing},
		"no rollout-wide budget: the phases' budgets": {spec.Size{}, "", -1, StatusProgressing},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := budgetWorld(c.budget, c.onFailure)
			w.failOneInDevAndOneInStaging(t)
			r := w.st.Rollout
			if got := r.MaxFailures; c.wantMax < 0 && got != nil || c.wantMax >= 0 && (got == nil || *got != c.wantMax) {
				t.Fatalf("the budget kept in the state: %v, want %d", got, c.wantMax)
			}
			if r.Status != c.wantStatus {
				t.Fatalf("status %s (%s), want %s", r.Status, r.Reason, c.wantStatus)
			}
			if c.wantStatus == StatusProgressing {
				if r.Phases[1].Status == PhaseFailed {
					t.Fatalf("staging failed within every budget: %+v", r.Phases[1])
				}
				return
			}
			if r.Phases[1].Status == PhaseSucceeded || !strings.Contains(r.Reason, "phase staging Failed: the rollout-wide failure budget is spent: 2 children failed across the rollout (dev-2, staging-1), maxFailures 1") {
				t.Fatalf("phase %s, reason %q", r.Phases[1].Status, r.Reason)
			}
		})
	}
}

// TestTheBudgetCountsEachChildOnceAndNotTheSkipped: a child failed in two phases counts
// once; a child a person skipped is not counted.
func TestTheBudgetCountsEachChildOnceAndNotTheSkipped(t *testing.T) {
	r := &state.Rollout{Skipped: []string{"c"}, Phases: []state.PhaseState{
		{Clusters: map[string]state.ClusterState{"a": {Status: ClusterFailed}, "b": {Status: ClusterDone}, "c": {Status: ClusterErrored}}},
		{Clusters: map[string]state.ClusterState{"a": {Status: ClusterErrored}, "d": {Status: ClusterErrored}, "e": {Status: ClusterWaiting}}},
	}}
	if got := strings.Join(r.Failures(), ","); got != "a,d" {
		t.Fatalf("failures %s", got)
	}
	if n := budgetOf(plan.Plan{MaxFailures: spec.Size{Kind: spec.SizePercent, Value: 50}}, [][]string{{"a", "b"}, {"a", "b", "c", "d"}}); n == nil || *n != 2 {
		t.Fatalf("50%% of the 4 distinct members: %v", n)
	}
	if budgetOf(plan.Plan{}, [][]string{{"a"}}) != nil {
		t.Fatal("no budget in the plan, none in the state")
	}
}

// TestAFailedPerClusterCheckSpendsTheRolloutWideBudget: a cluster a per-cluster check failed
// counts against the rollout's budget as a failed sync does, from the checks' gate.
func TestAFailedPerClusterCheckSpendsTheRolloutWideBudget(t *testing.T) {
	for budget, want := range map[int]state.RolloutStatus{0: StatusStopped, 1: StatusProgressing} {
		phases := hookedPhases("fail")
		phases[0].MaxFailures = 1
		w := newWorld(phases...)
		w.plan.MaxFailures = spec.Size{Kind: spec.SizeCount, Value: budget}
		w.toChecks(t)
		for _, k := range []string{"check/health/dev-1", "check/health/dev-2", "check/slo"} {
			status := state.HookSucceeded
			if k == "check/health/dev-2" {
				status = state.HookFailed
			}
			w.ends(11, status, k)
		}
		w.step(t, 12)
		r := w.st.Rollout
		if r.Status != want {
			t.Fatalf("budget %d: %s %q", budget, r.Status, r.Reason)
		}
		if want == StatusStopped && !strings.Contains(r.Reason, "rollout-wide failure budget is spent: 1 children failed across the rollout (dev-2), maxFailures 0") {
			t.Fatalf("budget %d: %q", budget, r.Reason)
		}
	}
}

// TestASpentBudgetStartsNoPhase: when the failures an onFailure: continue phase went on
// past already spend the rollout-wide budget, the next phase (onFailure stop) is not
// started: no pre-hook runs, nobody is admitted, the rollout stops.
func TestASpentBudgetStartsNoPhase(t *testing.T) {
	phases := threePhases()
	phases[0].MaxFailures, phases[0].OnFailure = 2, "continue"
	phases[1].PreHooks = []spec.Hook{httpHook("open-change", "https://itsm.example.com/changes", "fail")}
	w := newWorld(phases...)
	w.plan.MaxFailures = spec.Size{Kind: spec.SizeCount, Value: 1}
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.degrade("dev-1")
	w.degrade("dev-2")
	acts := w.step(t, 10)
	r := w.st.Rollout
	for _, a := range acts {
		if a.Kind == ActRunHook {
			t.Fatalf("a pre-hook of a phase the spent budget stops was run: %+v", a)
		}
	}
	if r.Status != StatusStopped || r.Phases[1].StartedAt != nil || len(r.Phases[1].Admitted) != 0 ||
		!strings.Contains(r.Reason, "phase staging Failed: the rollout-wide failure budget is spent: 2 children failed across the rollout (dev-1, dev-2), maxFailures 1") {
		t.Fatalf("status %s reason %q staging %+v", r.Status, r.Reason, r.Phases[1])
	}
}
