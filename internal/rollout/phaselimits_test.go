package rollout

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestAPhaseOverTheAppLimitDoesNotStart: seed 000's 1,000 applications per phase, here
// --max-apps-per-phase: a phaseDeployment rollout with a larger phase does not start, the
// error naming the phase and both fixes; RollingSync steps have no such bound.
func TestAPhaseOverTheAppLimitDoesNotStart(t *testing.T) {
	w := newWorld(threePhases()...)
	w.plan.Dialect = spec.DialectPhaseDeployment
	w.obs.Limits.AppsPerPhase = 1
	_, _, err := Step(w.plan, w.st, w.obs, at(0))
	if err == nil || !strings.Contains(err.Error(), "phase dev has 2 members, over the limit of 1") || !strings.Contains(err.Error(), "--max-apps-per-phase") {
		t.Fatalf("got %v", err)
	}
	w.obs.Limits.AppsPerPhase = 2
	w.step(t, 0)
	w = newWorld(threePhases()...)
	w.plan.Dialect, w.obs.Limits.AppsPerPhase = spec.DialectRollingSync, 1
	w.step(t, 0)
	if w.st.Rollout == nil {
		t.Fatal("a RollingSync rollout starts whatever its steps' sizes")
	}
}

// TestManyHooksAreWarnedAbout: a phase with more than ten hooks and checks gets a Warning
// when the rollout starts (seed 000); one with ten does not.
func TestManyHooksAreWarnedAbout(t *testing.T) {
	phases := threePhases()
	for i := range 11 {
		phases[1].Checks = append(phases[1].Checks, httpHook(fmt.Sprintf("check-%d", i), "https://example.com", "fail"))
	}
	phases[0].PreHooks = phases[1].Checks[:10]
	w := newWorld(phases...)
	var warned []string
	for _, a := range w.step(t, 0) {
		if a.Reason == EvManyHooks && a.Warning {
			warned = append(warned, a.Message)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "phase staging declares 11 hooks and checks, more than 10") {
		t.Fatalf("warned %q", warned)
	}
}
