package rollout

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
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

// batchChecksWorld is a composed phase of the prod children, one at a time (its step's
// maxUpdate 1), with batchChecks and a phase check slo, after dev and staging.
func batchChecksWorld(t *testing.T) *world {
	t.Helper()
	prod := envPhase("prod", "prod", spec.Size{}, false)
	prod.Throttle, prod.BatchChecks = count(1), true
	prod.Checks = []spec.Hook{httpHook("slo", "https://slo.example.com", "fail"), httpHook("each", "https://{{name}}.example.com", "fail")}
	phases := threePhases()
	phases[1].WaitDuration = 0
	phases[2] = prod
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.syncs(15, "r2", "staging-1", "staging-2")
	w.step(t, 20)
	if fmt.Sprint(w.st.Rollout.Phases[2].Admitted) != "[prod-1]" {
		t.Fatalf("one at a time: %v", w.st.Rollout.Phases[2].Admitted)
	}
	w.syncs(25, "r2", "prod-1")
	return w
}

// TestBatchChecksRunBetweenBatches: issue 35 item 3, "run its checks between batches":
// once the first wave settled, the phase's own check runs on it (the per-cluster one waits
// for the phase's end), and the second wave starts only once it passed.
func TestBatchChecksRunBetweenBatches(t *testing.T) {
	w := batchChecksWorld(t)
	acts := w.step(t, 30)
	if got := fmt.Sprint(runs(acts)); got != "[check/slo@batch-1]" || fmt.Sprint(w.st.Rollout.Phases[2].Admitted) != "[prod-1]" {
		t.Fatalf("the check runs on the first wave, the next waits: %s %v", got, w.st.Rollout.Phases[2].Admitted)
	}
	w.ends(31, state.HookSucceeded, "check/slo@batch-1")
	w.step(t, 32)
	if fmt.Sprint(w.st.Rollout.Phases[2].Admitted) != "[prod-1 prod-2]" {
		t.Fatalf("passed: the next wave starts: %v", w.st.Rollout.Phases[2].Admitted)
	}
	w.syncs(35, "r2", "prod-2")
	acts = w.step(t, 40)
	if got := fmt.Sprint(runs(acts)); got != "[check/each/prod-1 check/each/prod-2 check/slo]" {
		t.Fatalf("the last wave has no batch after it: the phase's checks run as always: %s", got)
	}
}

func TestAFailedBatchCheckFailsThePhaseBeforeTheNextWave(t *testing.T) {
	w := batchChecksWorld(t)
	w.step(t, 30)
	w.ends(31, state.HookFailed, "check/slo@batch-1")
	w.step(t, 32)
	r := w.st.Rollout
	if r.Status != StatusStopped || fmt.Sprint(r.Phases[2].Admitted) != "[prod-1]" || !strings.Contains(r.Reason, "slo@batch-1") {
		t.Fatalf("onFailure applies; prod-2 never starts: %s %q %v", r.Status, r.Reason, r.Phases[2].Admitted)
	}
}

// TestAPhaseDeploymentPhaseWithABatchSizeAdmitsInWaves: seed 000's dialect, a phase whose
// batchSize is 1 and batchWait two minutes, admits its members one at a time, each only once
// the last has stayed settled two minutes.
func TestAPhaseDeploymentPhaseWithABatchSizeAdmitsInWaves(t *testing.T) {
	dev := envPhase("dev", "dev", spec.Size{}, false)
	dev.Throttle, dev.BatchWait = count(1), 2*time.Minute
	w := newWorld(dev, envPhase("staging", "staging", spec.Size{}, false), envPhase("prod", "prod", spec.Size{}, false))
	w.step(t, 0)
	if got := w.st.Rollout.Phases[0].Admitted; !slices.Equal(got, []string{"dev-1"}) {
		t.Fatalf("first batch %v", got)
	}
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	w.step(t, 129)
	if got := w.st.Rollout.Phases[0].Admitted; len(got) != 1 {
		t.Fatalf("admitted before the batchWait ended: %v", got)
	}
	w.step(t, 130)
	if got := w.st.Rollout.Phases[0].Admitted; !slices.Equal(got, []string{"dev-1", "dev-2"}) {
		t.Fatalf("after the batchWait: %v", got)
	}
}
