package rollout

import (
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestLiveUnselectedChildrenAreRecorded: with RollingSync steps, a live child the state
// neither deploys nor admits (rendered for manual sync) is recorded in the state, so the
// renderer fails closed on it rather than leave it out; a pass that sees the same writes
// nothing; a phaseDeployment spec (no unselected children) records none.
func TestLiveUnselectedChildrenAreRecorded(t *testing.T) {
	for _, steps := range []bool{true, false} {
		w := newWorld(envPhase("step-1", "dev", spec.Size{}, steps), envPhase("step-2", "staging", spec.Size{}, steps), envPhase("step-3", "prod", spec.Size{}, steps))
		w.obs.Children["manual-1"] = Observation{Revision: "r2", SpecCompared: true, SyncStatus: "OutOfSync", Health: "Healthy"}
		w.step(t, 0)
		if got := w.st.Unselected; steps != slices.Equal(got, []string{"manual-1"}) || !steps && got != nil {
			t.Fatalf("steps %v: unselected %v", steps, got)
		}
		before := w.st
		if w.step(t, 1); steps && w.st != before && !slices.Equal(w.st.Unselected, before.Unselected) {
			t.Fatalf("the same live children again: %v then %v", before.Unselected, w.st.Unselected)
		}
		delete(w.obs.Children, "manual-1")
		w.step(t, 2)
		if w.st.Unselected != nil {
			t.Fatalf("steps %v: a child gone is dropped: %v", steps, w.st.Unselected)
		}
	}
}
