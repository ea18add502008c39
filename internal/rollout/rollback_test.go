package rollout

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// toRollback takes threePhases (prod on rollback, every phase with progressDeadline 5m)
// until prod-1 is Degraded and prod starts returning, at t0+30s.
func toRollback(t *testing.T) *world {
	t.Helper()
	return toRollbackWithin(t, 5*time.Minute)
}

// toRollbackWithin is toRollback with every phase's progressDeadline deadline (0: none
// stated).
func toRollbackWithin(t *testing.T, deadline time.Duration) *world {
	t.Helper()
	phases := threePhases()
	phases[1].WaitDuration = 0
	phases[2].OnFailure = "rollback"
	for i := range phases {
		phases[i].ProgressDeadline = deadline
	}
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.syncs(15, "r2", "staging-1", "staging-2")
	w.step(t, 20)
	w.syncs(25, "r2", "prod-1")
	w.degrade("prod-1")
	w.step(t, 30)
	if r := w.st.Rollout; r.Status != StatusRollingBack || fmt.Sprint(r.Phases[2].Returning) != "[prod-1]" {
		t.Fatalf("prod returns: %s %+v", r.Status, r.Phases[2])
	}
	return w
}

func TestARollbackThatCannotSettleStopsAtTheReturningPhasesProgressDeadline(t *testing.T) {
	w := toRollback(t)
	acts := w.step(t, 31)
	if !slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == ActRequeue && a.At.Equal(at(330)) }) {
		t.Fatalf("the returning phase's deadline (rollback at +30s, 5m) is a requeue: %v", acts)
	}
	w.step(t, 329)
	if w.st.Rollout.Status != StatusRollingBack {
		t.Fatalf("stopped before the deadline: %q", w.st.Rollout.Reason)
	}
	acts = w.step(t, 330)
	r := w.st.Rollout
	if r.Status != StatusStopped || r.Phases[2].Status != PhaseErrored || r.Phases[2].Clusters["prod-1"].Status != ClusterErrored {
		t.Fatalf("a child that never returns errors the phase and stops the rollout: %s %+v", r.Status, r.Phases[2])
	}
	for _, want := range []string{"rollback stopped", "phase prod", "prod-1", "progressDeadline 5m0s"} {
		if !strings.Contains(r.Reason, want) {
			t.Errorf("reason %q lacks %q", r.Reason, want)
		}
	}
	if !slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == ActEvent && a.Reason == EvRolloutStopped && a.Warning }) {
		t.Fatalf("a Warning Event says so: %v", acts)
	}
	if fmt.Sprint(r.Phases[1].Admitted) != "[staging-1 staging-2]" || fmt.Sprint(r.Phases[2].Returning) != "[prod-1]" {
		t.Fatalf("it stops where it is: nobody else moves: %+v", r.Phases)
	}
	if acts := w.step(t, 400); len(acts) != 0 || w.st.Rollout.Status != StatusStopped {
		t.Fatalf("a stopped rollback stays stopped: %v", acts)
	}
}

func TestARollbackAskedAgainAfterItsDeadlineGetsANewOne(t *testing.T) {
	w := toRollback(t)
	w.step(t, 330)
	w.edit(map[string]string{"rollback": "prod-1 repaired", "by": "erin"})
	w.step(t, 400)
	r := w.st.Rollout
	if r.Status != StatusRollingBack || r.Phases[2].Status != PhaseReturning || !r.Phases[2].RollbackAt.Equal(at(400)) {
		t.Fatalf("returns again from now: %s %+v", r.Status, r.Phases[2])
	}
	w.syncs(410, "r1", "prod-1")
	w.step(t, 420)
	if fmt.Sprint(w.st.Rollout.Phases[1].Returning) != "[staging-1 staging-2]" {
		t.Fatalf("then staging returns: %+v", w.st.Rollout.Phases)
	}
}

func TestARollbackWithinItsDeadlineIsUnchanged(t *testing.T) {
	w := toRollback(t)
	w.syncs(40, "r1", "prod-1")
	w.step(t, 45)
	w.syncs(50, "r1", "staging-1", "staging-2")
	w.step(t, 55)
	w.syncs(60, "r1", "dev-1", "dev-2")
	w.step(t, 400) // later than the first deadline, but dev returned in time
	if r := w.st.Rollout; r.Status != StatusRolledBack {
		t.Fatalf("%s %q", r.Status, r.Reason)
	}
}

// TestARollbackToADegradedRevisionStopsAtTheDefaultDeadline: the previous revision is
// Degraded too and no phase states a progressDeadline: the rollback stops at the default
// one instead of staying RollingBack forever.
func TestARollbackToADegradedRevisionStopsAtTheDefaultDeadline(t *testing.T) {
	w := toRollbackWithin(t, 0)
	w.syncs(40, "r1", "prod-1")
	w.degrade("prod-1") // the old revision is Degraded as well
	limit := 30 + int(DefaultProgressDeadline/time.Second)
	w.step(t, limit-1)
	if w.st.Rollout.Status != StatusRollingBack {
		t.Fatalf("stopped before the default deadline: %s", w.st.Rollout.Status)
	}
	w.step(t, limit)
	if r := w.st.Rollout; r.Status != StatusStopped || r.Phases[2].Clusters["prod-1"].Status != ClusterErrored {
		t.Fatalf("the rollback stops at the default deadline: %s %+v", r.Status, r.Phases[2].Clusters)
	}
}
