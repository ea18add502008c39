package rollout

import (
	"encoding/json"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestANewRolloutKeepsTheLastOnesPlaces: r2 admitted dev; r3 then starts (a new commit) and
// admits dev again, but staging and prod, still on r1, keep the place r1's rollout gave them,
// and dev's children, moved to r3, take r3's: a new rollout changes no position of a child
// it has not admitted (rendered positions: render.TestAKeptChildRendersTheSameAcrossANewRollout).
func TestANewRolloutKeepsTheLastOnesPlaces(t *testing.T) {
	w := newWorld(threePhases()...)
	w.st.Rollout = &state.Rollout{Revision: "r1", Status: StatusCompleted, Phases: []state.PhaseState{
		{Name: "all", Admitted: []string{"dev-1", "dev-2", "prod-1", "prod-2", "staging-1", "staging-2"}},
	}}
	before := w.st.Positions()
	w.step(t, 0) // r2 starts, admits dev
	w.plan.Revision, w.plan.Body = "r3", json.RawMessage(`{"v":3}`)
	w.step(t, 10) // r3 starts: r2 abandoned, dev pinned on r2
	after := w.st.Positions()
	for _, c := range []string{"staging-1", "prod-2"} {
		b, okB := before(c, "r1")
		a, okA := after(c, "r1")
		if !okB || !okA || a != b || a.Phase != "all" || a.Count != 1 {
			t.Errorf("%s on r1: %+v before, %+v after", c, b, a)
		}
	}
	if p, ok := after("dev-1", "r3"); !ok || p != (state.Position{Phase: "dev", Index: 1, Count: 3, Rank: 1}) {
		t.Errorf("dev-1, admitted by r3: %+v %v", p, ok)
	}
}
