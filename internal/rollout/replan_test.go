package rollout

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// downgraded is threePhases at staging (dev done, staging-1 and staging-2 admitted) when
// the spec loses its deploymentStrategy: the same revision, one phase, all at once.
func downgraded(t *testing.T) *world {
	t.Helper()
	phases := threePhases()
	phases[1].WaitDuration = 0
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	if r := w.st.Rollout; r.Phase != 1 || fmt.Sprint(r.Phases[1].Admitted) != "[staging-1 staging-2]" {
		t.Fatalf("at staging: %+v", r.Phases[1])
	}
	w.plan.Phases = []spec.Phase{{Name: "all", Size: spec.Size{Kind: spec.SizeAll}, OnFailure: "stop"}}
	w.plan.Dialect = spec.DialectAllAtOnce
	return w
}

// TestRemovingTheStrategyFinishesTheCurrentPhaseFirst: seed 000's downgrade, "in-progress
// phased deployments complete current phase before reverting": staging's admitted children
// settle first, nobody else moves meanwhile, then the rest go all at once; nobody is
// reverted on the way.
func TestRemovingTheStrategyFinishesTheCurrentPhaseFirst(t *testing.T) {
	w := downgraded(t)
	acts := w.step(t, 20)
	r := w.st.Rollout
	if r.Status != StatusProgressing || fmt.Sprint(w.admitted()) != "[dev-1 dev-2 staging-1 staging-2]" {
		t.Fatalf("the current phase finishes first; nobody else moves: %s %v", r.Status, w.admitted())
	}
	if !slices.ContainsFunc(acts, func(a Action) bool {
		return a.Reason == EvRolloutReplanned && strings.Contains(a.Message, "staging finishes")
	}) {
		t.Fatalf("an Event says so: %v", acts)
	}
	w.syncs(25, "r2", "staging-1", "staging-2")
	for _, c := range []string{"dev-1", "dev-2", "staging-1", "staging-2"} {
		w.obs.Changed[c] = false // they run r2: the new plan changes nothing for them
	}
	w.step(t, 30)
	r = w.st.Rollout
	if len(r.Phases) != 1 || r.Phases[0].Name != "all" || fmt.Sprint(r.Phases[0].Admitted) != "[dev-1 dev-2 prod-1 prod-2 staging-1 staging-2]" {
		t.Fatalf("then one phase takes the rest at once, the finished phases' children carried in: %+v", r.Phases)
	}
	if r.Phases[0].Clusters["dev-1"].Status != ClusterDone || len(w.st.Pinned) != 0 {
		t.Fatalf("carried Done, not pinned (a rollback returns them too): %+v %v", r.Phases[0].Clusters["dev-1"], w.st.Pinned)
	}
	w.syncs(35, "r2", "prod-1", "prod-2")
	w.step(t, 40)
	if r := w.st.Rollout; r.Status != StatusCompleted || w.st.Deployed != "r2" || len(w.st.Pinned) != 0 {
		t.Fatalf("it completes, r2 deployed, no pin left: %s %s %v", r.Status, w.st.Deployed, w.st.Pinned)
	}
}

func TestAFailedChildOfAReplannedPhaseStopsTheRollout(t *testing.T) {
	w := downgraded(t)
	w.syncs(15, "r2", "staging-1", "staging-2")
	w.degrade("staging-2")
	w.step(t, 20)
	r := w.st.Rollout
	if r.Status != StatusStopped || !strings.Contains(r.Reason, "staging-2") || fmt.Sprint(w.admitted()) != "[dev-1 dev-2 staging-1 staging-2]" {
		t.Fatalf("a person decides; nobody else moves: %s %q %v", r.Status, r.Reason, w.admitted())
	}
}
