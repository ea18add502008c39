package rollout

import (
	"slices"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestAStepWithABatchWaitAdmitsInWaves: a RollingSync step of maxUpdate 1 with a batchWait
// of two minutes admits its second member only once the first has settled and stayed
// settled that long, and asks to be woken then; without one, the next starts as soon as the
// first settles.
func TestAStepWithABatchWaitAdmitsInWaves(t *testing.T) {
	for _, wait := range []time.Duration{0, 2 * time.Minute} {
		dev := envPhase("step-1", "dev", spec.Size{Kind: spec.SizeCount, Value: 1}, true)
		dev.BatchWait = wait
		w := newWorld(dev, envPhase("step-2", "staging", spec.Size{}, true), envPhase("step-3", "prod", spec.Size{}, true))
		w.step(t, 0)
		if got := w.st.Rollout.Phases[0].Admitted; !slices.Equal(got, []string{"dev-1"}) {
			t.Fatalf("first batch %v", got)
		}
		w.syncs(5, "r2", "dev-1")
		acts := w.step(t, 10) // dev-1 settles
		admitted := w.st.Rollout.Phases[0].Admitted
		if wait == 0 {
			if !slices.Equal(admitted, []string{"dev-1", "dev-2"}) {
				t.Fatalf("without a batchWait the next member starts at once: %v", admitted)
			}
			continue
		}
		if len(admitted) != 1 || !slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == ActRequeue && a.At.Equal(at(130)) }) {
			t.Fatalf("the second wave waits until t+130s: admitted %v, actions %+v", admitted, acts)
		}
		w.step(t, 129)
		if len(w.st.Rollout.Phases[0].Admitted) != 1 {
			t.Fatal("admitted before the batchWait ended")
		}
		w.step(t, 130)
		if got := w.st.Rollout.Phases[0].Admitted; !slices.Equal(got, []string{"dev-1", "dev-2"}) {
			t.Fatalf("after the batchWait: %v", got)
		}
	}
}
