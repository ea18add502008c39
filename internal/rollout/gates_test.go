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

func httpHook(name, url, policy string) spec.Hook {
	return spec.Hook{Name: name, Type: "http", FailurePolicy: policy, Timeout: time.Minute, Block: &urlBlock{URL: url}}
}

// runs are the hooks the engine asks to be running.
func runs(acts []Action) []string {
	var out []string
	for _, a := range acts {
		if a.Kind == ActRunHook {
			out = append(out, a.Key)
		}
	}
	slices.Sort(out)
	return out
}

// ends reports hook results back, as the agent does when runs end.
func (w *world) ends(s int, status state.HookStatus, keys ...string) {
	if w.obs.Hooks == nil {
		w.obs.Hooks = map[string]HookResult{}
	}
	for _, k := range keys {
		w.obs.Hooks[k] = HookResult{Status: status, Attempts: 1, FinishedAt: at(s), Message: "said " + string(status)}
	}
}

// toChecks takes hookedPhases through dev's pre-hook and sync until its checks run (t0+10s).
func (w *world) toChecks(t *testing.T) {
	w.step(t, 0)
	w.ends(1, state.HookSucceeded, "pre/open-change")
	w.step(t, 2)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
}

func hookedPhases(checkPolicy string) []spec.Phase {
	phases := threePhases()
	phases[0].PreHooks = []spec.Hook{httpHook("open-change", "https://itsm.example.com/changes", "fail")}
	phases[0].Checks = []spec.Hook{httpHook("health", "https://{{name}}.example.com/healthz", checkPolicy), httpHook("slo", "https://slo.example.com", "fail")}
	phases[0].PostHooks = []spec.Hook{httpHook("notify", "https://chat.example.com", "ignore")}
	return phases
}

func TestPreHooksRunBeforeAnyoneIsAdmittedAndARecordedSuccessNeverRunsAgain(t *testing.T) {
	w := newWorld(hookedPhases("fail")...)
	acts := w.step(t, 0)
	if fmt.Sprint(runs(acts)) != "[pre/open-change]" || len(w.admitted()) != 0 {
		t.Fatalf("runs %v, admitted %v", runs(acts), w.admitted())
	}
	if run := w.st.Rollout.Phases[0].Hooks["pre/open-change"]; run.Status != state.HookRunning || !run.StartedAt.Equal(at(0)) {
		t.Fatalf("the ledger records the run before it starts: %+v", run)
	}
	if acts := w.step(t, 5); fmt.Sprint(runs(acts)) != "[pre/open-change]" {
		t.Fatalf("a running hook is asked for again (a new agent restarts it): %v", runs(acts))
	}
	w.ends(6, state.HookSucceeded, "pre/open-change")
	acts = w.step(t, 7)
	if fmt.Sprint(w.admitted()) != "[dev-1 dev-2]" || len(runs(acts)) != 0 {
		t.Fatalf("admitted %v after the pre-hook, runs %v", w.admitted(), runs(acts))
	}
	for s := 8; s < 12; s++ {
		if acts := w.step(t, s); slices.Contains(runs(acts), "pre/open-change") {
			t.Fatal("a recorded success ran again")
		}
	}
}

func TestChecksRunPerClusterOnceEveryMemberIsDoneThenPostHooks(t *testing.T) {
	w := newWorld(hookedPhases("fail")...)
	w.step(t, 0)
	w.ends(1, state.HookSucceeded, "pre/open-change")
	w.step(t, 2)
	if acts := w.step(t, 3); len(runs(acts)) != 0 {
		t.Fatalf("checks wait for the members: %v", runs(acts))
	}
	w.syncs(5, "r2", "dev-1", "dev-2")
	acts := w.step(t, 10)
	if fmt.Sprint(runs(acts)) != "[check/health/dev-1 check/health/dev-2 check/slo]" {
		t.Fatalf("a templated check runs per cluster, a plain one once: %v", runs(acts))
	}
	w.ends(11, state.HookSucceeded, "check/health/dev-1", "check/health/dev-2", "check/slo")
	acts = w.step(t, 12)
	if fmt.Sprint(runs(acts)) != "[post/notify]" || w.st.Rollout.Phase != 0 {
		t.Fatalf("post-hooks after the checks (no soak in dev): %v", runs(acts))
	}
	w.ends(13, state.HookFailed, "post/notify") // failurePolicy: ignore
	w.step(t, 14)
	if w.st.Rollout.Phase != 1 {
		t.Fatalf("an ignored post-hook failure does not hold the phase: %+v", w.st.Rollout.Phases[0])
	}
}

func TestAFailedCheckOnOneClusterStopsTheRolloutAndNamesIt(t *testing.T) {
	w := newWorld(hookedPhases("fail")...)
	w.toChecks(t)
	w.ends(11, state.HookSucceeded, "check/health/dev-1", "check/slo")
	w.ends(11, state.HookFailed, "check/health/dev-2")
	w.step(t, 12)
	r := w.st.Rollout
	if r.Status != StatusStopped || r.Phases[0].Status != PhaseFailed || !strings.Contains(r.Reason, "check health on dev-2 Failed") {
		t.Fatalf("%s %s: %q", r.Status, r.Phases[0].Status, r.Reason)
	}
}

// TestARunEndingAfterTheRolloutStoppedIsRecorded: a check still running when another one
// stopped the rollout gets its outcome in the ledger when it ends (not Running for ever),
// with its Event; the rollout stays stopped.
func TestARunEndingAfterTheRolloutStoppedIsRecorded(t *testing.T) {
	w := newWorld(hookedPhases("fail")...)
	w.toChecks(t)
	w.ends(11, state.HookFailed, "check/health/dev-2")
	w.step(t, 12)
	if r := w.st.Rollout; r.Status != StatusStopped || r.Phases[0].Hooks["check/slo"].Status != state.HookRunning {
		t.Fatalf("setup: %s, slo %s", r.Status, r.Phases[0].Hooks["check/slo"].Status)
	}
	w.ends(13, state.HookSucceeded, "check/slo", "check/health/dev-1")
	acts := w.step(t, 14)
	r := w.st.Rollout
	if got := r.Phases[0].Hooks; got["check/slo"].Status != state.HookSucceeded || got["check/health/dev-1"].Status != state.HookSucceeded {
		t.Fatalf("late outcomes not recorded: %+v", got)
	}
	if r.Status != StatusStopped || !hasEvent(acts, EvHookSucceeded) || len(runs(acts)) != 0 {
		t.Fatalf("status %s, events %v, runs %v", r.Status, events(acts), runs(acts))
	}
}

func TestAnIgnoredCheckFailureLetsThePhaseGoOn(t *testing.T) {
	w := newWorld(hookedPhases("ignore")...)
	w.toChecks(t)
	w.ends(11, state.HookSucceeded, "check/health/dev-1", "check/slo")
	w.ends(11, state.HookErrored, "check/health/dev-2")
	w.step(t, 12)
	w.ends(12, state.HookSucceeded, "post/notify")
	w.step(t, 13)
	if w.st.Rollout.Phase != 1 || w.st.Rollout.Status != StatusProgressing {
		t.Fatalf("%+v", w.st.Rollout)
	}
}

func TestAnAbortEndsTheRolloutAtOnceWithoutRollingBack(t *testing.T) {
	phases := hookedPhases("fail")
	phases[0].PreHooks[0].FailurePolicy = "abort"
	phases[0].OnFailure = "rollback"
	w := newWorld(phases...)
	w.step(t, 0)
	w.ends(1, state.HookFailed, "pre/open-change")
	acts := w.step(t, 2)
	r := w.st.Rollout
	if r.Status != StatusStopped || !strings.Contains(r.Reason, "aborted") || !slices.Contains(events(acts), EvRolloutAborted) || len(w.admitted()) != 0 {
		t.Fatalf("%s %q %v", r.Status, r.Reason, events(acts))
	}
}

func TestAFailedPreHookUnderRollbackReturnsNobodyItDidNotAdmit(t *testing.T) {
	phases := hookedPhases("fail")
	phases[1].PreHooks = []spec.Hook{httpHook("gate", "https://gate.example.com", "fail")}
	phases[1].OnFailure = "rollback"
	w := newWorld(phases...)
	w.step(t, 0)
	w.ends(1, state.HookSucceeded, "pre/open-change")
	w.step(t, 2)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.ends(11, state.HookSucceeded, "check/health/dev-1", "check/health/dev-2", "check/slo")
	w.step(t, 12) // post-hook starts
	w.ends(12, state.HookSucceeded, "post/notify")
	w.step(t, 13) // staging starts: its pre-hook runs
	w.ends(14, state.HookErrored, "pre/gate")
	w.step(t, 15)
	r := w.st.Rollout
	if r.Status != StatusRollingBack || r.Phases[1].Status != PhaseErrored || fmt.Sprint(r.Phases[0].Returning) != "[dev-1 dev-2]" {
		t.Fatalf("%s %s returning %v: %q", r.Status, r.Phases[1].Status, r.Phases[0].Returning, r.Reason)
	}
}

func TestAtMostTenChecksRunAtOnce(t *testing.T) {
	phases := []spec.Phase{envPhase("prod", "prod", spec.Size{}, false)}
	for i := range 12 {
		phases[0].Checks = append(phases[0].Checks, httpHook(fmt.Sprintf("c%02d", i), "https://x.example.com", "fail"))
	}
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "prod-1", "prod-2")
	acts := w.step(t, 10)
	if n := len(runs(acts)); n != MaxChecksAtOnce {
		t.Fatalf("%d checks at once", n)
	}
	w.ends(11, state.HookSucceeded, runs(acts)[:3]...)
	if n := len(runs(w.step(t, 12))); n != 9 { // 7 still running + the 2 left
		t.Fatalf("%d running after 3 ended", n)
	}
}
