package rollout

import (
	"fmt"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// heldPrefix begins the rollout's reason while a hook is held by the agent's limits.
const heldPrefix = "waiting: "

// holdOverLimits leaves out of hooks (one list of the current phase) every hook that asks
// for more than the agent's limits l allow (spec.Limits.Violations) and that the agent has
// not run to its end: it is not started, never run with a shorter timeout, and the list
// waits for it (held). The first held hook's reason, naming the setting to raise, becomes
// the rollout's reason; a Warning Event tells it once (when the reason is new, not every
// pass). Once the list holds none (the agent restarted with raised limits), that reason is
// cleared. A run that has ended (in the ledger, or its result just observed) is judged as
// it ended.
func (ps *pass) holdOverLimits(ph *state.PhaseState, kind string, hooks []spec.Hook) (keep []spec.Hook, held bool) {
	r, l, results := ps.st.Rollout, ps.o.Limits, ps.o.Hooks
	list := fmt.Sprintf("%sphase %s: %s ", heldPrefix, ph.Name, kind)
	why := ""
	for _, h := range hooks {
		over := l.Violations(h)
		if len(over) == 0 || ended(ph, results, kind, h.Name) {
			keep = append(keep, h)
			continue
		}
		if why == "" {
			v := over[0]
			why = fmt.Sprintf("%s%s not started: %s %s (fix: %s)", list, h.Name, v.Field, v.Msg, v.Fix)
		}
	}
	switch {
	case why != "" && r.Reason != why:
		r.Reason = why
		ps.emit(r, EvHookHeld, why)
	case why == "" && strings.HasPrefix(r.Reason, list):
		r.Reason = ""
	}
	return keep, why != ""
}

// ended reports whether the ledger has runs of the hook named name in list kind and every
// one of them has ended, or its result came back (results, by ledger key).
func ended(ph *state.PhaseState, results map[string]HookResult, kind, name string) bool {
	seen := false
	for key, run := range ph.Hooks {
		if run.Kind == kind && run.Name == name {
			if res := results[key].Status; run.Status == state.HookRunning && (res == "" || res == state.HookRunning) {
				return false
			}
			seen = true
		}
	}
	return seen
}
