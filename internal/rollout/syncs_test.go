package rollout

import (
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestSyncsAreWaitingChildrenThatNeedIt: of an active rollout's admitted children, those
// waiting whose live Application does not sync itself; a done one, one not live, one with
// automated sync, and every child of an ended rollout are left alone.
func TestSyncsAreWaitingChildrenThatNeedIt(t *testing.T) {
	admitted := at(0)
	outOfSync := Observation{Revision: "r2", SpecCompared: true, SyncStatus: "OutOfSync"}
	auto := outOfSync
	auto.AutoSync = true
	st := &state.State{Rollout: &state.Rollout{Revision: "r2", Status: state.RolloutProgressing, Phases: []state.PhaseState{{Name: "dev",
		Admitted: []string{"web-dev-1", "web-dev-2", "web-dev-3", "web-dev-4"}, Clusters: map[string]state.ClusterState{
			"web-dev-1": {Status: state.ClusterWaiting, AdmittedAt: admitted}, "web-dev-2": {Status: state.ClusterDone, AdmittedAt: admitted},
			"web-dev-3": {Status: state.ClusterWaiting, AdmittedAt: admitted}, "web-dev-4": {Status: state.ClusterWaiting, AdmittedAt: admitted}}}}}}
	live := map[string]Observation{"web-dev-1": outOfSync, "web-dev-2": outOfSync, "web-dev-4": auto}
	got := syncs(st, live)
	if !slices.EqualFunc(got, []string{"web-dev-1"}, func(s Sync, c string) bool { return s.Child == c && s.Reason != "" }) {
		t.Fatalf("syncs %+v", got)
	}
	st.Rollout.Status = state.RolloutCompleted
	if got := syncs(st, live); got != nil {
		t.Fatalf("an ended rollout syncs nothing: %+v", got)
	}
	if got := syncs(&state.State{}, live); got != nil {
		t.Fatalf("no rollout syncs nothing: %+v", got)
	}
}
