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

// measureBlock is the block of `type: measure`, a kind these tests define: the engine
// knows a kind by its traits only, so its tests use one of their own with the traits of
// a check measured through the soak that pauses for a person when Inconclusive.
type measureBlock struct {
	Query  string `json:"query"`
	During string `json:"during,omitempty"`
}

func (b *measureBlock) Fill(f func(string) string) spec.HookBlock {
	c := *b
	c.Query = f(b.Query)
	return &c
}

func (b *measureBlock) DuringSoak() bool { return b.During == spec.DuringSoak }

func init() {
	spec.RegisterHookKind(spec.NewHookKind[measureBlock](spec.HookKindDef[*measureBlock]{
		Name: "measure", MaxTimeout: 10 * time.Minute, TimeoutFix: "use at most 10m",
		Traits: spec.HookTraits{DuringSoak: true, InconclusiveFix: "look at the metric"},
		Parse:  func(*spec.HookReader) *measureBlock { return nil }, // the engine's tests build hooks, never parse them
	}))
}

// metricCheck is a check measured once the phase is done, or through the soak (during);
// count is kept in the name's place of the tests that read as before.
func metricCheck(name, during string, _ int) spec.Hook {
	return spec.Hook{Name: name, Type: "measure", FailurePolicy: "fail", Timeout: time.Minute, Block: &measureBlock{Query: "up", During: during}}
}

func eventOf(acts []Action, reason string) *Action {
	for i, a := range acts {
		if a.Kind == ActEvent && a.Reason == reason {
			return &acts[i]
		}
	}
	return nil
}

func TestAnInconclusiveCheckPausesTheRolloutUntilAResumeRunsItAgain(t *testing.T) {
	phases := threePhases()
	phases[0].Checks = []spec.Hook{metricCheck("success-rate", "", 3)}
	w := newWorld(phases...)
	w.edit(map[string]string{}) // controls read, no pause key: the engine's pause must hold anyway
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	if acts := w.step(t, 10); fmt.Sprint(runs(acts)) != "[check/success-rate]" {
		t.Fatalf("the check runs once dev is done: %v", runs(acts))
	}
	w.ends(11, state.HookInconclusive, "check/success-rate")
	acts := w.step(t, 12)
	p := w.st.Paused
	if p == nil || p.Check != "check/success-rate" || !strings.Contains(p.Reason, "success-rate Inconclusive") || !strings.Contains(p.Reason, "resume") {
		t.Fatalf("an Inconclusive check pauses the rollout naming it and the fix: %+v", p)
	}
	if ev := eventOf(acts, EvCheckInconclusive); ev == nil || !ev.Warning {
		t.Fatalf("a Warning Event is published: %+v", acts)
	}
	w.obs.Hooks = nil // the agent forgets a result once the ledger has it
	for s := 20; s < 25; s++ {
		if w.step(t, s); w.st.Paused == nil || w.st.Rollout.Phase != 0 || len(w.st.Rollout.Phases[1].Admitted) != 0 {
			t.Fatalf("the pause holds without a pause key: %+v", w.st.Paused)
		}
	}
	w.edit(map[string]string{"resume": "yes"})
	acts = w.step(t, 30)
	run := w.st.Rollout.Phases[0].Hooks["check/success-rate"]
	if w.st.Paused != nil || run.Status != state.HookRunning || !run.StartedAt.Equal(at(30)) || fmt.Sprint(runs(acts)) != "[check/success-rate]" {
		t.Fatalf("resume runs the check again from scratch: paused %+v, run %+v, runs %v", w.st.Paused, run, runs(acts))
	}
	w.edit(map[string]string{})
	w.ends(40, state.HookSucceeded, "check/success-rate")
	w.step(t, 41)
	if w.st.Rollout.Phase != 1 {
		t.Fatalf("a passing attempt lets the phase go on: %+v", w.st.Rollout.Phases[0])
	}
}

func TestAnInconclusiveCheckUnderIgnoreDoesNotPause(t *testing.T) {
	phases := threePhases()
	c := metricCheck("success-rate", "", 1)
	c.FailurePolicy = "ignore"
	phases[0].Checks = []spec.Hook{c}
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.ends(11, state.HookInconclusive, "check/success-rate")
	w.step(t, 12)
	if w.st.Paused != nil || w.st.Rollout.Phase != 1 {
		t.Fatalf("ignored: paused %+v, phase %d", w.st.Paused, w.st.Rollout.Phase)
	}
}

func TestAFailureDecidesBeforeAnInconclusiveCheck(t *testing.T) {
	phases := threePhases()
	phases[0].Checks = []spec.Hook{metricCheck("a", "", 1), metricCheck("b", "", 1)}
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.ends(11, state.HookInconclusive, "check/a")
	w.ends(11, state.HookFailed, "check/b")
	w.step(t, 12)
	if w.st.Paused != nil || w.st.Rollout.Status != StatusStopped {
		t.Fatalf("onFailure applies: paused %+v, rollout %+v", w.st.Paused, w.st.Rollout.Status)
	}
}

// duringSoakWorld is threePhases with a check of staging measured through its 1m soak,
// brought to the soak's start (t0+20s, until t0+80s); it returns that pass's actions.
func duringSoakWorld(t *testing.T) (*world, []Action) {
	phases := threePhases()
	phases[1].Checks = []spec.Hook{metricCheck("error-rate", spec.DuringSoak, 0)}
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.syncs(15, "r2", "staging-1", "staging-2")
	return w, w.step(t, 20)
}

func TestADuringSoakCheckStartsWithTheSoakAndMeasuresUntilItsEnd(t *testing.T) {
	w, acts := duringSoakWorld(t)
	ph := w.st.Rollout.Phases[1]
	if ph.Status != PhaseSoaking || !ph.SoakUntil.Equal(at(80)) {
		t.Fatalf("soak: %+v", ph)
	}
	i := slices.IndexFunc(acts, func(a Action) bool { return a.Kind == ActRunHook && a.Key == "check/error-rate" })
	if i < 0 || !acts[i].At.Equal(at(80)) {
		t.Fatalf("the check starts with the soak and measures until its end: %+v", acts)
	}
	w.step(t, 80)
	if w.st.Rollout.Phase != 1 {
		t.Fatal("the soak is over but the check has not passed yet: the phase waits")
	}
	w.ends(81, state.HookSucceeded, "check/error-rate")
	w.step(t, 82)
	if w.st.Rollout.Phase != 2 || len(w.st.Rollout.Phases[2].Admitted) == 0 {
		t.Fatalf("soak over and check passed: prod starts: %+v", w.st.Rollout.Phases[2])
	}
}

func TestADuringSoakCheckThatFailsMidSoakStopsThePhaseAtOnce(t *testing.T) {
	w, _ := duringSoakWorld(t)
	w.ends(40, state.HookFailed, "check/error-rate")
	w.step(t, 41)
	r := w.st.Rollout
	if r.Status != StatusStopped || r.Phases[1].Status != PhaseFailed || !strings.Contains(r.Reason, "error-rate") {
		t.Fatalf("onFailure stop applies mid-soak: %s %s %q", r.Status, r.Phases[1].Status, r.Reason)
	}
	for s := 80; s < 200; s += 40 {
		if w.step(t, s); len(w.st.Rollout.Phases[2].Admitted) != 0 {
			t.Fatal("the next phase is never admitted")
		}
	}
}

func TestChecksBeforeTheSoakDoNotWaitForDuringSoakOnes(t *testing.T) {
	phases := threePhases()
	phases[1].Checks = []spec.Hook{metricCheck("ready", "", 1), metricCheck("error-rate", spec.DuringSoak, 0)}
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.syncs(15, "r2", "staging-1", "staging-2")
	if acts := w.step(t, 20); fmt.Sprint(runs(acts)) != "[check/ready]" || w.st.Rollout.Phases[1].SoakUntil != nil {
		t.Fatalf("first the ordinary checks, no soak yet: %v", runs(acts))
	}
	w.ends(21, state.HookSucceeded, "check/ready")
	if acts := w.step(t, 22); fmt.Sprint(runs(acts)) != "[check/error-rate]" || !w.st.Rollout.Phases[1].SoakUntil.Equal(at(82)) {
		t.Fatalf("then the soak, and the during-soak check with it: %v", runs(acts))
	}
}

// inconclusivePause brings a rollout to the engine's pause on dev's Inconclusive check,
// with the person's controls read (none set).
func inconclusivePause(t *testing.T) *world {
	t.Helper()
	phases := threePhases()
	phases[0].Checks = []spec.Hook{metricCheck("success-rate", "", 1)}
	w := newWorld(phases...)
	w.edit(map[string]string{})
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.ends(11, state.HookInconclusive, "check/success-rate")
	w.step(t, 12)
	w.obs.Hooks = nil
	if w.st.Paused == nil {
		t.Fatal("not paused")
	}
	return w
}

func TestAbortAndRollbackEndTheEnginesPause(t *testing.T) {
	w := inconclusivePause(t)
	w.edit(map[string]string{"abort": "bad metric"})
	w.step(t, 20)
	w.edit(map[string]string{})
	w.step(t, 21)
	if w.st.Rollout.Status != StatusStopped || w.st.Paused != nil {
		t.Fatalf("abort: %s, paused %+v", w.st.Rollout.Status, w.st.Paused)
	}
	w = inconclusivePause(t)
	w.edit(map[string]string{"rollback": "bad metric"})
	w.step(t, 20)
	if w.st.Rollout.Status != StatusRollingBack || w.st.Paused != nil {
		t.Fatalf("rollback: %s, paused %+v", w.st.Rollout.Status, w.st.Paused)
	}
}

func TestAPersonsPauseOverAnInconclusiveCheckNeedsAResumeToRunItAgain(t *testing.T) {
	w := inconclusivePause(t)
	w.edit(map[string]string{"pause": "looking into it"})
	w.step(t, 20)
	w.edit(map[string]string{})
	w.step(t, 21) // the person's pause key is gone: their pause ends, the check's holds again
	if p := w.st.Paused; p == nil || p.Check != "check/success-rate" || w.st.Rollout.Phases[0].Hooks["check/success-rate"].Status != state.HookInconclusive {
		t.Fatalf("the engine's pause is back: %+v", p)
	}
}

func TestASkippedClustersInconclusiveCheckDoesNotPause(t *testing.T) {
	phases := threePhases()
	c := metricCheck("success-rate", "", 1)
	c.Block.(*measureBlock).Query = `up{cluster="{{name}}"}`
	phases[0].Checks = []spec.Hook{c}
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.edit(map[string]string{"skip": "dev-2"})
	w.ends(11, state.HookInconclusive, "check/success-rate/dev-2")
	w.ends(11, state.HookSucceeded, "check/success-rate/dev-1")
	w.step(t, 12)
	if w.st.Paused != nil || w.st.Rollout.Phase != 1 {
		t.Fatalf("a skipped cluster is not judged: paused %+v, phase %d", w.st.Paused, w.st.Rollout.Phase)
	}
}

// TestTheInconclusivePauseSaysSkipNeedsAResume: skip alone does not lift the engine's
// pause, so the reason of a per-cluster run says to skip, then resume; a per-phase run's
// names no skip.
func TestTheInconclusivePauseSaysSkipNeedsAResume(t *testing.T) {
	cases := []struct {
		name, query, key, want, not string
	}{
		{"per cluster", `up{cluster="{{name}}"}`, "check/success-rate/dev-2", "or skip dev-2, then resume; or rollback or abort", "resume runs the check again, skip"},
		{"per phase", "up", "check/success-rate", "then resume to run the check again; rollback or abort", "skip"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			phases := threePhases()
			h := metricCheck("success-rate", "", 1)
			h.Block.(*measureBlock).Query = c.query
			phases[0].Checks = []spec.Hook{h}
			w := newWorld(phases...)
			w.step(t, 0)
			w.syncs(5, "r2", "dev-1", "dev-2")
			w.step(t, 10)
			w.ends(11, state.HookInconclusive, c.key)
			w.step(t, 12)
			if p := w.st.Paused; p == nil || !strings.Contains(p.Reason, c.want) || strings.Contains(p.Reason, c.not) {
				t.Fatalf("reason %+v, want %q", p, c.want)
			}
		})
	}
}

// TestAnInconclusiveRunOfAKindThatDoesNotPauseIsAFailure: only a kind whose traits say so
// pauses for a person; an Inconclusive run of another kind is judged as a failure, never
// passed over.
func TestAnInconclusiveRunOfAKindThatDoesNotPauseIsAFailure(t *testing.T) {
	phases := threePhases()
	phases[0].Checks = []spec.Hook{httpHook("smoke", "https://slo.example.com", "fail")}
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.ends(11, state.HookInconclusive, "check/smoke")
	w.step(t, 12)
	if w.st.Paused != nil || w.st.Rollout.Phase != 0 || w.st.Rollout.Phases[0].Status != PhaseFailed {
		t.Fatalf("paused %+v, phase %d %s", w.st.Paused, w.st.Rollout.Phase, w.st.Rollout.Phases[0].Status)
	}
}
