package rollout

import (
	"fmt"
	"maps"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// EvCheckInconclusive is published (a Warning) when a run whose kind pauses for a person
// (spec.HookTraits.InconclusiveFix) ends Inconclusive and the engine pauses the rollout.
// Its value is the reason published since the first kind that may (metric): alerts and
// event watchers match on it.
const EvCheckInconclusive = "MetricInconclusive"

// pausedBy is who the engine's pause names.
const pausedBy = "cmp-phase"

// beforeSoak is sp with only the checks judged once its members are done (every check but
// those measured through the soak).
func beforeSoak(sp spec.Phase) spec.Phase {
	sp.Checks = slices.DeleteFunc(slices.Clone(sp.Checks), spec.Hook.DuringSoak)
	return sp
}

// duringSoak is sp with only its checks measured through the soak.
func duringSoak(sp spec.Phase) spec.Phase {
	sp.Checks = slices.DeleteFunc(slices.Clone(sp.Checks), func(h spec.Hook) bool { return !h.DuringSoak() })
	return sp
}

// soakGate holds the phase for its soak (soaked) while its `during: soak` checks measure
// through it: they start with the soak, each measures until the soak's end (the run's
// Action.At); one that fails fails the phase at once (onFailure applies, as for any
// check), and the phase goes on only once the soak is over and every one has passed.
func (ps *pass) soakGate(ph *state.PhaseState, sp spec.Phase) bool {
	over := ps.soaked(ph, sp)
	during := duringSoak(sp)
	if len(during.Checks) == 0 || ph.SoakUntil == nil {
		return over // no soak (nobody admitted): nothing to measure through
	}
	from := len(ps.acts)
	passed := ps.hookGate(ph, during, KindCheck)
	for i := from; i < len(ps.acts); i++ {
		if a := &ps.acts[i]; a.Kind == ActRunHook && a.Hook.DuringSoak() {
			a.At = *ph.SoakUntil
		}
	}
	return passed && over
}

// inconclusive is the first run of hooks (in ledger-key order) whose outcome was
// Inconclusive, whose kind pauses for a person and whose failurePolicy does not ignore it,
// or ""; a skipped cluster's run is not judged.
func inconclusive(r *state.Rollout, ph *state.PhaseState, kind string, hooks []spec.Hook) string {
	for _, key := range slices.Sorted(maps.Keys(ph.Hooks)) {
		run := ph.Hooks[key]
		if run.Kind != kind || run.Status != state.HookInconclusive || (run.Cluster != "" && slices.Contains(r.Skipped, run.Cluster)) {
			continue
		}
		if i := slices.IndexFunc(hooks, func(h spec.Hook) bool { return h.Name == run.Name }); i >= 0 && pausesForAPerson(hooks[i], run) {
			return key
		}
	}
	return ""
}

// pausesForAPerson reports whether run, of hook h, ended Inconclusive in a way the engine
// pauses for: h's kind says it does, and h's failurePolicy does not ignore it.
func pausesForAPerson(h spec.Hook, run state.HookRun) bool {
	return run.Status == state.HookInconclusive && h.InconclusiveFix() != "" && h.FailurePolicy != "ignore"
}

// holdInconclusive pauses the rollout on the Inconclusive run key of ph, a run of one of
// hooks: an engine pause (Pause.Check) that only resume lifts, which runs the check again
// from scratch (skip of a per-cluster run's cluster needs a resume too); rollback and abort
// work as on any pause. The fix starts with what the run's kind says to look at.
func (ps *pass) holdInconclusive(ph *state.PhaseState, hooks []spec.Hook, key string) {
	st, now := ps.st, ps.now
	run := ph.Hooks[key]
	look := "look at what it measures"
	if i := slices.IndexFunc(hooks, func(h spec.Hook) bool { return h.Name == run.Name }); i >= 0 && hooks[i].InconclusiveFix() != "" {
		look = hooks[i].InconclusiveFix()
	}
	reason := fmt.Sprintf("phase %s: %s %s Inconclusive: %s (fix: %s, then resume to run the check again; %srollback or abort)",
		phaseLabel(ph), run.Kind, target(run.Name, run.Cluster), run.Message, look, skipFix(run.Cluster))
	st.Paused = &state.Pause{Reason: reason, By: pausedBy, Since: now, Check: key}
	st.Rollout.Record(now, EvCheckInconclusive, "paused: "+reason)
	ps.add(Action{Kind: ActEvent, Reason: EvCheckInconclusive, Warning: true, Message: "paused: " + reason})
}

// skipFix is the pause reason's way past a per-cluster run: skip alone does not lift the
// pause (only resume does), so it says both.
func skipFix(cluster string) string {
	if cluster == "" {
		return ""
	}
	return "or skip " + cluster + ", then resume; or "
}

// phaseLabel names phase ph as status does: a track's copy as phase@track (prod@us).
func phaseLabel(ph *state.PhaseState) string {
	if ph.Track == "" || ph.Track == sharedView {
		return ph.Name
	}
	return ph.Name + "@" + ph.Track
}

// checkHolds reports whether the pause is the engine's, for an Inconclusive check of a
// rollout still in progress: it lasts until a person resumes, pause key or not.
func checkHolds(st *state.State) bool {
	return st.Paused != nil && st.Paused.Check != "" && st.Rollout != nil && st.Rollout.Status == StatusProgressing
}

// rerunInconclusive forgets the current phases' Inconclusive runs (with tracks, each
// walking track's phase) when a person resumes the engine's pause p, so each runs again
// from scratch (a new ledger entry).
func rerunInconclusive(st *state.State, p *state.Pause) {
	r := st.Rollout
	if p == nil || p.Check == "" || r == nil {
		return
	}
	for _, i := range r.Current() {
		maps.DeleteFunc(r.Phases[i].Hooks, func(_ string, run state.HookRun) bool {
			return run.Status == state.HookInconclusive && run.Kind == KindCheck // a failure hook's outcome stands: it ran once
		})
	}
}
