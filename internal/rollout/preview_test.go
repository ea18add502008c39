package rollout

import (
	"fmt"
	"testing"
)

func TestPreviewShowsTheNextBatchWithoutTouchingTheState(t *testing.T) {
	w := newWorld(threePhases()...)
	toSoak(t, w) // staging soaks: all its members admitted
	before := fmt.Sprint(w.admitted())
	next := PreviewNext(w.st, w.plan.Phases)
	if got := fmt.Sprint(next.Rollout.Phases[2].Admitted); got != "[prod-1]" {
		t.Fatalf("the next batch is prod's first 50%%: %s", got)
	}
	if fmt.Sprint(w.admitted()) != before || next == w.st {
		t.Fatal("the preview changed the live state")
	}
	w2 := newWorld(threePhases()...)
	w2.step(t, 0)
	w2.st.Rollout.Status = StatusStopped
	if PreviewNext(w2.st, w2.plan.Phases) != w2.st {
		t.Fatal("a stopped rollout admits nobody next")
	}
}
