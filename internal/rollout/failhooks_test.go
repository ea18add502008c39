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

// failingWorld is threePhases with prod on action (stop or rollback), prod's failure hook
// incident and the rollout's stop, rollback and rolled-back hooks, taken until prod-1 is
// Degraded and prod fails, at t0+30s.
func failingWorld(t *testing.T, action string) *world {
	t.Helper()
	phases := threePhases()
	phases[1].WaitDuration = 0
	phases[2].OnFailure = action
	phases[2].FailureHooks = []spec.Hook{httpHook("incident", "https://x/incident", "fail")}
	w := newWorld(phases...)
	w.plan.OnFailure = spec.FailureHooks{
		Stop:       []spec.Hook{httpHook("page", "https://x/page", "fail")},
		Rollback:   []spec.Hook{httpHook("undo", "https://x/undo", "fail")},
		RolledBack: []spec.Hook{httpHook("done", "https://x/done", "fail")},
	}
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.syncs(15, "r2", "staging-1", "staging-2")
	if acts := w.step(t, 20); len(runs(acts)) != 0 {
		t.Fatalf("no failure hook runs before a failure: %v", runs(acts))
	}
	w.syncs(25, "r2", "prod-1")
	w.degrade("prod-1")
	return w
}

// started are the HookStarted Events among acts.
func started(acts []Action) int { return countEvents(acts, EvHookStarted) }

// countEvents counts the Events of reason among acts.
func countEvents(acts []Action, reason string) int {
	n := 0
	for _, a := range acts {
		if a.Kind == ActEvent && a.Reason == reason {
			n++
		}
	}
	return n
}

func TestAFailedPhaseRunsItsFailureHooksAndTheRollbacksOnce(t *testing.T) {
	w := failingWorld(t, "rollback")
	acts := w.step(t, 30)
	r := w.st.Rollout
	if r.Status != StatusRollingBack {
		t.Fatalf("prod rolls back: %s %q", r.Status, r.Reason)
	}
	if got := fmt.Sprint(runs(acts)); got != "[fail/incident rollback/undo]" {
		t.Fatalf("the phase's failure hook and the rollback's start, no other: %s", got)
	}
	if r.Phases[2].FailedAt.IsZero() || r.Phases[2].Hooks["fail/incident"].Status != state.HookRunning {
		t.Fatalf("the ledger of the failed phase records them: %+v", r.Phases[2])
	}
	for _, a := range acts {
		if a.Kind == ActRunHook && (a.Phase != 2 || a.Track != "") {
			t.Fatalf("a run names the phase whose ledger holds it: %+v", a)
		}
	}
	reason := r.Reason
	acts = w.step(t, 31)
	if got := fmt.Sprint(runs(acts)); got != "[fail/incident rollback/undo]" || started(acts) != 0 {
		t.Fatalf("running failure hooks are asked for again (a new agent restarts them), never started twice: %s, %d started", got, started(acts))
	}
	w.ends(32, state.HookFailed, "fail/incident")
	w.ends(32, state.HookSucceeded, "rollback/undo")
	acts = w.step(t, 33)
	r = w.st.Rollout
	if r.Phases[2].Hooks["fail/incident"].Status != state.HookFailed || r.Status != StatusRollingBack || r.Reason != reason {
		t.Fatalf("a failed failure hook is recorded and hides nothing: %s %q %+v", r.Status, r.Reason, r.Phases[2].Hooks)
	}
	if !slices.ContainsFunc(acts, func(a Action) bool { return a.Reason == EvHookFailed && a.Warning }) {
		t.Fatalf("a Warning Event tells it: %v", acts)
	}
	if len(runs(acts)) != 0 {
		t.Fatalf("an ended failure hook is not run again: %v", runs(acts))
	}
	for s := 40; s < 200 && w.st.Rollout.Status == StatusRollingBack; s += 10 {
		w.syncs(s+5, "r1", "prod-1", "staging-1", "staging-2", "dev-1", "dev-2")
		acts = w.step(t, s+10)
	}
	if w.st.Rollout.Status != StatusRolledBack || fmt.Sprint(runs(acts)) != "[rolledback/done]" {
		t.Fatalf("the rolled-back hook runs when the rollback ends: %s %v", w.st.Rollout.Status, runs(acts))
	}
	if w.st.Rollout.Phases[2].Hooks["rollback/undo"].Status != state.HookSucceeded {
		t.Fatalf("the rollback's hook kept its outcome: %+v", w.st.Rollout.Phases[2].Hooks)
	}
}

func TestAStoppedRolloutRunsItsStopHooksAndAPersonsRollbackItsOwn(t *testing.T) {
	w := failingWorld(t, "stop")
	acts := w.step(t, 30)
	if r := w.st.Rollout; r.Status != StatusStopped || fmt.Sprint(runs(acts)) != "[fail/incident stop/page]" {
		t.Fatalf("a phase that stops the rollout runs its failure hooks and the stop hooks: %s %v", r.Status, runs(acts))
	}
	w.edit(map[string]string{"rollback": "prod-1 is down", "by": "erin"})
	acts = w.step(t, 31)
	if got := fmt.Sprint(runs(acts)); got != "[fail/incident rollback/undo stop/page]" || started(acts) != 1 {
		t.Fatalf("a person's rollback starts the rollback's hooks; the stop hooks still running are asked for, not started again: %s, %d started", got, started(acts))
	}
	w.ends(32, state.HookSucceeded, "stop/page", "fail/incident", "rollback/undo")
	w.step(t, 33)
	for key, run := range w.st.Rollout.Phases[2].Hooks {
		if run.Status != state.HookSucceeded {
			t.Errorf("%s: the runs of an earlier cause are recorded too: %+v", key, run)
		}
	}
}

func TestAPersonsAbortRunsTheAbortedPhasesFailureHooks(t *testing.T) {
	w := failingWorld(t, "stop")
	delete(w.obs.Children, "prod-1") // not synced yet: prod walks
	w.step(t, 21)
	w.edit(map[string]string{"abort": "wrong image", "by": "erin"})
	acts := w.step(t, 22)
	if r := w.st.Rollout; r.Status != StatusStopped || fmt.Sprint(runs(acts)) != "[fail/incident stop/page]" {
		t.Fatalf("an abort fails the walking phase: its failure hooks and the stop hooks run: %s %v %+v", r.Status, runs(acts), r.Phases[2])
	}
}

func TestAFailureHookOverTheAgentsLimitsIsRecordedNotRun(t *testing.T) {
	w := failingWorld(t, "stop")
	w.plan.OnFailure.Stop[0].Timeout = time.Hour // over the http kind's limit
	acts := w.step(t, 30)
	r := w.st.Rollout
	if fmt.Sprint(runs(acts)) != "[fail/incident]" {
		t.Fatalf("the hook over the limits is not started: %v", runs(acts))
	}
	run := r.Phases[2].Hooks["stop/page"]
	if run.Status != state.HookErrored || !strings.Contains(run.Message, "fix:") || strings.Contains(r.Reason, "page") {
		t.Fatalf("the ledger records it Errored with the fix; the rollout's reason stays its failure's: %+v %q", run, r.Reason)
	}
	if acts := w.step(t, 31); slices.ContainsFunc(acts, func(a Action) bool { return a.Reason == EvHookHeld }) {
		t.Fatalf("said once: %v", acts)
	}
}
