package rollout

import (
	"fmt"
	"slices"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// The lists of failure hooks (seed 002's SyncFail), as ledger kinds and HOOK_TYPE: a phase's
// onFailure.hooks, and the rollout's stopHooks, rollbackHooks and rolledBackHooks.
const (
	KindFail       = "fail"
	KindStop       = "stop"
	KindRollback   = "rollback"
	KindRolledBack = "rolledback"
)

// markFailed ends phase ph with a failure status at now; its failure hooks run from this
// pass on (failureHooks), once: a phase that failed before keeps its first time.
func markFailed(ph *state.PhaseState, status state.PhaseStatus, now time.Time) {
	ph.Status = status
	if ph.FailedAt.IsZero() {
		ph.FailedAt = now
	}
}

// failureHooks runs the failure hooks their causes call for: each failed phase's
// onFailure.hooks, and the rollout's stopHooks (it is Stopped), rollbackHooks (it rolls or
// rolled back) and rolledBackHooks (it rolled back). They go through the ledger as every
// hook does: each once per rollout and cause, recorded, started again by a new agent, held
// over the agent's limits, at most HooksAtOnce of a list at once. Their verdict is
// nobody's: a failed one is reported (an Event, the ledger) and changes neither the
// rollout's status nor its reason. A list whose cause is over (a stopped rollout a person
// rolled back) still has its running runs recorded, and starts no new one.
func (ps *pass) failureHooks() {
	st, p := ps.st, ps.p
	r := st.Rollout
	if r == nil || st.Paused != nil {
		return
	}
	cur := r.Current()
	if len(cur) == 0 {
		return // a rollout past its phases is over: nothing failed
	}
	at := cur[0] // the ledger the agent reads results for
	for i := range r.Phases {
		ph := &r.Phases[i]
		if ph.FailedAt.IsZero() || i >= len(p.Phases) || p.Phases[i].Name != ph.Name {
			continue
		}
		loc, hooks := i, p.Phases[i].FailureHooks
		if !slices.Contains(cur, i) {
			// a phase that failed behind the current one (its children did not return in
			// time): its runs go in a current ledger, named after it, where results are read
			loc, hooks = at, renamed(hooks, "@"+ph.Name)
		}
		ps.runFailureList(loc, KindFail, hooks, failedOf(ph, r.Skipped), true)
	}
	ph, fails := &r.Phases[at], r.Failures()
	for _, l := range []struct {
		kind  string
		hooks []spec.Hook
		cause bool
	}{
		{KindStop, p.OnFailure.Stop, r.Status == StatusStopped},
		{KindRollback, p.OnFailure.Rollback, r.Status == StatusRollingBack || r.Status == StatusRolledBack},
		{KindRolledBack, p.OnFailure.RolledBack, r.Status == StatusRolledBack},
	} {
		if l.cause || runsOf(ph, l.kind, "") {
			ps.runFailureList(at, l.kind, l.hooks, fails, l.cause)
		}
	}
}

// runFailureList drives one list of failure hooks in the ledger of phase i: it records the
// results that came back and, while its cause holds (start), starts the runs not started
// yet. A per-cluster hook runs once for each of clusters.
func (ps *pass) runFailureList(i int, kind string, hooks []spec.Hook, clusters []string, start bool) {
	ph := &ps.st.Rollout.Phases[i]
	if ph.Track != "" {
		own := ps.o.Hooks
		ps.o.Hooks = ps.o.TrackHooks[ph.Track] // a track's phase has its results apart
		defer func() { ps.o.Hooks = own }()
	}
	if !start {
		hooks = slices.DeleteFunc(slices.Clone(hooks), func(h spec.Hook) bool { return !ranAny(ph, kind, h.Name) })
	}
	hooks = ps.heldFailureHooks(ph, kind, hooks)
	if len(hooks) == 0 && !runsOf(ph, kind, "") {
		return
	}
	from := len(ps.acts)
	ps.gate(ph, kind, hooks, clusters, orDefault(ps.o.Limits.HooksAtOnce, MaxHooksAtOnce))
	if len(ph.Hooks) == 0 {
		ph.Hooks = nil // gate made the ledger; nothing ran (a per-cluster hook, no cluster failed)
	}
	for j := from; j < len(ps.acts); j++ {
		if a := &ps.acts[j]; a.Kind == ActRunHook {
			a.Phase, a.Track = i, ph.Track // gate names the rollout's phase; the ledger is this one
		}
	}
}

// heldFailureHooks are hooks without the ones over the agent's limits: such a hook is not
// started, and its ledger records it Errored once, with the fix, and an Event says so (a
// failure hook has no phase to hold: the rollout's reason stays its failure's).
func (ps *pass) heldFailureHooks(ph *state.PhaseState, kind string, hooks []spec.Hook) []spec.Hook {
	l, now := ps.o.Limits, ps.now
	var keep []spec.Hook
	for _, h := range hooks {
		over := l.Violations(h)
		if len(over) == 0 || runsOf(ph, kind, h.Name) {
			keep = append(keep, h) // within the limits, or started before they changed: recorded
			continue
		}
		if ranAny(ph, kind, h.Name) {
			continue // held already: recorded once
		}
		if ph.Hooks == nil {
			ph.Hooks = map[string]state.HookRun{}
		}
		v, at := over[0], now
		why := fmt.Sprintf("phase %s: %s hook %s not started: %s %s (fix: %s)", ph.Name, kind, h.Name, v.Field, v.Msg, v.Fix)
		ph.Hooks[HookKey(kind, h.Name, "")] = state.HookRun{Kind: kind, Name: h.Name, Status: state.HookErrored, StartedAt: now, FinishedAt: &at, Message: why}
		ps.emit(ps.st.Rollout, EvHookHeld, why)
	}
	return keep
}

// renamed is hooks, each name with suffix.
func renamed(hooks []spec.Hook, suffix string) []spec.Hook {
	out := slices.Clone(hooks)
	for i := range out {
		out[i].Name += suffix
	}
	return out
}

// runsOf reports whether phase ph's ledger has a run of list kind still Running, of the
// hook named name ("": any).
func runsOf(ph *state.PhaseState, kind, name string) bool {
	for _, run := range ph.Hooks {
		if run.Kind == kind && (name == "" || run.Name == name) && run.Status == state.HookRunning {
			return true
		}
	}
	return false
}

// ranAny reports whether phase ph's ledger has any run of hook name in list kind.
func ranAny(ph *state.PhaseState, kind, name string) bool {
	for _, run := range ph.Hooks {
		if run.Kind == kind && run.Name == name {
			return true
		}
	}
	return false
}

// failedOf are the children of phase ph that failed or errored, skipped ones left out.
func failedOf(ph *state.PhaseState, skipped []string) []string {
	var out []string
	for c, cs := range ph.Clusters {
		if cs.Status.Failure() && !slices.Contains(skipped, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}
