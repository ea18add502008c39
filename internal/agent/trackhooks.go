package agent

import (
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// trackHookResults are this rollout's ended runs for each track's current phase of cur,
// by track and ledger key (tracks walk their phases at once, so each has its own).
func (a *Agent) trackHookResults(name string, cur *state.State) map[string]map[string]rollout.HookResult {
	if cur == nil || cur.Rollout == nil || len(cur.Rollout.Tracks) == 0 {
		return nil
	}
	r := cur.Rollout
	out := map[string]map[string]rollout.HookResult{}
	a.runs.mu.Lock()
	defer a.runs.mu.Unlock()
	for _, t := range r.Tracks {
		if t.Phase >= len(r.Phases) || r.Phases[t.Phase].Track != t.Name {
			continue
		}
		got := map[string]rollout.HookResult{}
		for key := range r.Phases[t.Phase].Hooks {
			if res, ok := a.runs.results[name][idempotencyKey(name, r, t.Phase, key)]; ok {
				got[key] = res
			}
		}
		out[t.Name] = got
	}
	return out
}

// phaseLabel is how a run names its phase in its idempotency key: the phase, and for a
// track's copy of it, the track (phase@track), so tracks' runs of one hook are apart.
func phaseLabel(ph state.PhaseState) string {
	if ph.Track != "" {
		return ph.Name + "@" + ph.Track
	}
	return ph.Name
}

// inPlan is act with its phase index in the plan the agent read (the engine's index is
// the state's, where a split rollout has one copy of a phase per track).
func inPlan(phases []spec.Phase, r *state.Rollout, act rollout.Action) rollout.Action {
	if act.Phase < 0 || act.Phase >= len(r.Phases) {
		return act
	}
	name := r.Phases[act.Phase].Name
	if i := slices.IndexFunc(phases, func(p spec.Phase) bool { return p.Name == name }); i >= 0 {
		act.Phase = i
	}
	return act
}
