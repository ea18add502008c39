package rollout

import (
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestMoving: the agent applies exactly the children the state moved that do not show it
// yet — admitted ones to the rollout's revision, returning ones back — and nobody else.
func TestMoving(t *testing.T) {
	t1, t2 := at(10), at(20)
	st := &state.State{Deployed: "r1", Children: []string{"a", "b", "c", "d", "e"}, Pinned: map[string]string{"e": "r0"},
		Rollout: &state.Rollout{Revision: "r2", Status: StatusProgressing, Phases: []state.PhaseState{
			{Name: "dev", Admitted: []string{"a", "b"}, Clusters: map[string]state.ClusterState{"a": {AdmittedAt: t1}, "b": {AdmittedAt: t1}}},
			{Name: "prod", Admitted: []string{"c", "new"}, Clusters: map[string]state.ClusterState{"c": {AdmittedAt: t2}, "new": {AdmittedAt: t2}}},
		}}}
	live := map[string]string{"a": "r2", "b": "r1", "c": "r1", "d": "r1", "e": "r0"}
	got := Moving(st, live)
	want := []Move{{"b", "r2", t1}, {"c", "r2", t2}}
	if !slices.Equal(got, want) {
		t.Fatalf("admitted: got %v, want %v (a shows it already, d and e are not moved, new does not exist yet)", got, want)
	}

	rb := at(30)
	st.Rollout.Status = StatusRollingBack
	st.Rollout.Phases[1].Returning, st.Rollout.Phases[1].Admitted, st.Rollout.Phases[1].RollbackAt = []string{"c"}, nil, &rb
	live["c"] = "r2"
	if got, want := Moving(st, live), []Move{{"b", "r2", t1}, {"c", "r1", rb}}; !slices.Equal(got, want) {
		t.Fatalf("rolling back: got %v, want %v", got, want)
	}

	for _, s := range []state.RolloutStatus{StatusCompleted, StatusAbandoned} {
		st.Rollout.Status = s
		if got := Moving(st, live); got != nil {
			t.Fatalf("%s: a rollout that no longer decides moves nobody, got %v", s, got)
		}
	}
	if got := Moving(&state.State{}, live); got != nil {
		t.Fatalf("no rollout: got %v", got)
	}
}
