package state

import (
	"encoding/json"
	"strings"
	"testing"
)

// completed is a state whose rollout of r2 admitted dev-1 in dev, then prod-2 and prod-1
// in prod, and completed; prod-3 stayed on r1 (pinned).
func completed() *State {
	return &State{Schema: Schema, Generation: 5, Deployed: "r2", Children: []string{"dev-1", "prod-1", "prod-2", "prod-3"},
		Pinned: map[string]string{"prod-3": "r1"},
		Placed: []Placement{{Revision: "r1", Phases: []PlacedPhase{{Name: "all", Children: []string{"prod-3", "dev-1"}}}}},
		Rollout: &Rollout{Revision: "r2", Status: RolloutCompleted, Phases: []PhaseState{
			{Name: "dev", Admitted: []string{"dev-1"}},
			{Name: "prod", Admitted: []string{"prod-2", "prod-1"}},
		}}}
}

// TestAChildKeepsItsPositionUntilAnotherRolloutAdmitsIt: a child's position is its place in
// the rollout that admitted it at the revision it runs — its phase, the phase's index and
// count, its rank in admission order — and stays so when the next rollout starts without
// admitting it (KeepPlacements); once admitted, the new rollout's place is its own. A
// child on an older revision keeps that revision's place (its rank unchanged by others
// that left it); a placement none of whose children runs its revision is dropped.
func TestAChildKeepsItsPositionUntilAnotherRolloutAdmitsIt(t *testing.T) {
	st := completed()
	want := map[string]Position{
		"dev-1":  {Phase: "dev", Index: 1, Count: 2, Rank: 1},
		"prod-1": {Phase: "prod", Index: 2, Count: 2, Rank: 2},
		"prod-2": {Phase: "prod", Index: 2, Count: 2, Rank: 1},
		"prod-3": {Phase: "all", Index: 1, Count: 1, Rank: 1},
	}
	check := func(when string) {
		t.Helper()
		pos := st.Positions()
		for c, w := range want {
			rev, _, _ := st.Assignments()(c)
			if got, ok := pos(c, rev); !ok || got != w {
				t.Errorf("%s: %s at %s is %+v (%v), want %+v", when, c, rev, got, ok, w)
			}
		}
	}
	check("completed")

	st.KeepPlacements() // r3 starts
	st.Rollout = &Rollout{Revision: "r3", Status: RolloutProgressing, Phases: []PhaseState{
		{Name: "canary", Admitted: []string{"prod-1"}}, {Name: "rest"}, {Name: "last"},
	}}
	want["prod-1"] = Position{Phase: "canary", Index: 1, Count: 3, Rank: 1}
	check("r3 admitted prod-1 only")
	if len(st.Placed) != 2 || st.Placed[0].Revision != "r1" || st.Placed[1].Revision != "r2" {
		t.Fatalf("placements kept: %+v", st.Placed)
	}
	st.Pinned = nil // prod-3 moves on to r2 as well, and r4 starts
	st.KeepPlacements()
	if len(st.Placed) != 2 || st.Placed[0].Revision != "r2" || st.Placed[1].Revision != "r3" {
		t.Fatalf("no child runs r1 any more: its placement goes; kept %+v", st.Placed)
	}
}

// TestAStateWithoutPlacementsKnowsNoPosition: a state from before positions (no rollout, no
// placements) knows none, and says so rather than guess.
func TestAStateWithoutPlacementsKnowsNoPosition(t *testing.T) {
	st := &State{Schema: Schema, Generation: 1, Deployed: "r1", Children: []string{"a"}}
	if p, ok := st.Positions()("a", "r1"); ok || p != (Position{}) {
		t.Fatalf("got %+v %v", p, ok)
	}
	st.KeepPlacements()
	if st.Placed != nil {
		t.Fatalf("nothing to keep: %+v", st.Placed)
	}
}

// TestAHandEditedPlacementIsRefused: a phase name no spec could have fails the state's
// validation (the render fails closed) rather than reach the children's parameters; a
// placement whose revision a completed rollout dropped does not.
func TestAHandEditedPlacementIsRefused(t *testing.T) {
	st := completed()
	st.Revisions = map[string]json.RawMessage{"r2": json.RawMessage(`{}`)}
	st.Pinned = nil // r1 is no child's any more; its placement stays until the next start
	if err := st.Validate(); err != nil {
		t.Fatalf("the engine's own state: %v", err)
	}
	st.Placed[0].Phases[0].Name = "a\"b"
	if err := st.Validate(); err == nil || !strings.Contains(err.Error(), "placed phase name") {
		t.Errorf("a hand-edited phase name: %v", err)
	}
}
