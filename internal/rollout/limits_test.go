package rollout

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// commandBlock is the block of a stand-in for `type: command` (internal/hooks/commandhook,
// which the engine's tests do not link): the engine sees a kind only through spec, so the
// stand-in declares what the real one does there, its timeout limit set by
// --max-command-timeout.
type commandBlock struct {
	Command []string          `json:"command"`
	Env     map[string]string `json:"env,omitempty"`
}

func (b *commandBlock) Fill(f func(string) string) spec.HookBlock {
	c := &commandBlock{Command: slices.Clone(b.Command), Env: maps.Clone(b.Env)}
	for i, a := range c.Command {
		c.Command[i] = f(a)
	}
	for k, v := range c.Env {
		c.Env[k] = f(v)
	}
	return c
}

func init() {
	spec.RegisterHookKind(spec.NewHookKind[commandBlock](spec.HookKindDef[*commandBlock]{
		Name: "command", MaxTimeout: spec.MaxCommandTimeout, TimeoutFix: "use at most 30m, or poll from a check",
		TimeoutSetting: spec.FlagMaxCommandTimeout, LimitTimeout: func(l spec.Limits) time.Duration { return l.CommandTimeout },
		Parse: func(*spec.HookReader) *commandBlock { return nil }, // the engine's tests build hooks, never parse them
	}))
	spec.RegisterHookKind(spec.NewHookKind[urlBlock](spec.HookKindDef[*urlBlock]{
		Name: "http", MaxTimeout: spec.MaxHTTPTimeout, TimeoutFix: "use at most 10m",
		TimeoutSetting: spec.FlagMaxHTTPTimeout, LimitTimeout: func(l spec.Limits) time.Duration { return l.HTTPTimeout },
		Parse: func(*spec.HookReader) *urlBlock { return nil },
	}))
}

// urlBlock is the block of a stand-in for `type: http` (internal/hooks/httphook), like
// commandBlock: its URL is its one templated field, its timeout limit --max-http-timeout.
type urlBlock struct {
	URL string `json:"url"`
}

func (b *urlBlock) Fill(f func(string) string) spec.HookBlock { return &urlBlock{URL: f(b.URL)} }

func approvalHook(timeout time.Duration) spec.Hook {
	return spec.Hook{Name: "wait-for-approval", Type: "command", FailurePolicy: "fail", Timeout: timeout,
		Block: &commandBlock{Command: []string{"./scripts/wait-for-approval.sh"}}}
}

// warningsOf are the Warning Events among acts, by reason.
func warningsOf(acts []Action, reason string) []string {
	var out []string
	for _, a := range acts {
		if a.Kind == ActEvent && a.Warning && a.Reason == reason {
			out = append(out, a.Message)
		}
	}
	return out
}

// TestAHookOverTheAgentsLimitsIsHeld: a 24h pre-hook over the agent's 30m command limit
// is not started and nobody is admitted; the rollout waits with a reason naming the
// setting, told once in a Warning Event. With the limit raised (an agent restarted with
// --max-command-timeout 24h) it starts, the reason is cleared, and the phase goes on.
func TestAHookOverTheAgentsLimitsIsHeld(t *testing.T) {
	phases := threePhases()
	phases[0].PreHooks = []spec.Hook{approvalHook(24 * time.Hour), httpHook("open-change", "https://itsm.example.com", "fail")}
	w := newWorld(phases...)
	acts := w.step(t, 0)
	want := "waiting: phase dev: pre wait-for-approval not started: timeout 24h is over --max-command-timeout (30m) (fix: raise --max-command-timeout on the agent"
	if r := w.st.Rollout; r.Status != StatusProgressing || !strings.HasPrefix(r.Reason, want) {
		t.Fatalf("status %s reason %q, want Progressing with %q", r.Status, r.Reason, want)
	}
	if fmt.Sprint(runs(acts)) != "[pre/open-change]" || len(w.admitted()) != 0 {
		t.Fatalf("only the hook within the limits runs, nobody admitted: runs %v admitted %v", runs(acts), w.admitted())
	}
	if ws := warningsOf(acts, EvHookHeld); len(ws) != 1 || !strings.HasPrefix(ws[0], want) {
		t.Fatalf("one Warning Event naming the setting: %q", ws)
	}
	w.ends(1, state.HookSucceeded, "pre/open-change")
	for s := 2; s < 5; s++ {
		acts := w.step(t, s)
		if ws := warningsOf(acts, EvHookHeld); len(ws) != 0 || len(w.admitted()) != 0 || len(runs(acts)) != 0 {
			t.Fatalf("t+%d: held, told once: warnings %q, admitted %v, runs %v", s, ws, w.admitted(), runs(acts))
		}
	}
	if _, ok := w.st.Rollout.Phases[0].Hooks["pre/wait-for-approval"]; ok {
		t.Fatal("a held hook has no ledger entry: it never started")
	}

	w.obs.Limits = spec.Limits{CommandTimeout: 24 * time.Hour}
	acts = w.step(t, 6)
	if fmt.Sprint(runs(acts)) != "[pre/wait-for-approval]" || w.st.Rollout.Reason != "" {
		t.Fatalf("raised: runs %v, reason %q", runs(acts), w.st.Rollout.Reason)
	}
	if a := acts[len(acts)-1]; a.Hook.Timeout != 24*time.Hour {
		t.Fatalf("run with its own timeout, never cut: %+v", a.Hook)
	}
	w.ends(7, state.HookSucceeded, "pre/wait-for-approval")
	w.step(t, 8)
	if fmt.Sprint(w.admitted()) != "[dev-1 dev-2]" {
		t.Fatalf("admitted %v after the approval", w.admitted())
	}
}

// TestAHeldCheckWaitsAfterAdmission: a check over the limits holds the phase once its
// members are done, not before; pre-hooks passing do not clear its reason.
func TestAHeldCheckWaitsAfterAdmission(t *testing.T) {
	phases := threePhases()
	phases[0].Checks = []spec.Hook{approvalHook(time.Hour)}
	w := newWorld(phases...)
	w.step(t, 0)
	if w.st.Rollout.Reason != "" || fmt.Sprint(w.admitted()) != "[dev-1 dev-2]" {
		t.Fatalf("admission is not held by a check: reason %q admitted %v", w.st.Rollout.Reason, w.admitted())
	}
	w.syncs(2, "r2", "dev-1", "dev-2")
	acts := w.step(t, 5)
	if !strings.HasPrefix(w.st.Rollout.Reason, "waiting: phase dev: check wait-for-approval not started: timeout 1h") || len(warningsOf(acts, EvHookHeld)) != 1 {
		t.Fatalf("reason %q, acts %+v", w.st.Rollout.Reason, acts)
	}
	acts = w.step(t, 6)
	if len(warningsOf(acts, EvHookHeld)) != 0 || w.st.Rollout.Phase != 0 || w.st.Rollout.Reason == "" {
		t.Fatalf("still held, told once: phase %d reason %q", w.st.Rollout.Phase, w.st.Rollout.Reason)
	}
}

// TestARunTheLedgerEndedIsJudgedAsItEnded: a hook an agent with higher limits ran to its
// end is not held by lower ones.
func TestARunTheLedgerEndedIsJudgedAsItEnded(t *testing.T) {
	phases := threePhases()
	phases[0].PreHooks = []spec.Hook{approvalHook(time.Hour)}
	w := newWorld(phases...)
	w.obs.Limits = spec.Limits{CommandTimeout: 2 * time.Hour}
	w.step(t, 0)
	w.ends(1, state.HookSucceeded, "pre/wait-for-approval")
	w.obs.Limits = spec.Limits{}
	w.step(t, 2)
	if w.st.Rollout.Reason != "" || fmt.Sprint(w.admitted()) != "[dev-1 dev-2]" {
		t.Fatalf("reason %q admitted %v", w.st.Rollout.Reason, w.admitted())
	}
}

// TestEngineDefaultsAreTheSpecDefaults: the engine's concurrency defaults are
// spec.DefaultLimits'.
func TestEngineDefaultsAreTheSpecDefaults(t *testing.T) {
	if d := spec.DefaultLimits(); d.HooksAtOnce != MaxHooksAtOnce || d.ChecksAtOnce != MaxChecksAtOnce {
		t.Fatalf("spec %+v, engine %d and %d", d, MaxHooksAtOnce, MaxChecksAtOnce)
	}
}
