package rollout

import (
	"fmt"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// tooLarge refuses a rollout one of whose phaseDeployment phases has more members than the
// installation allows (seed 000: 1,000 applications per phase, --max-apps-per-phase): the
// rollout does not start, and the error names the phase and both fixes. RollingSync and
// RollingUpdate steps have no such bound in Argo CD, and none here.
func tooLarge(p plan.Plan, members [][]string, l spec.Limits) error {
	if p.Dialect != spec.DialectPhaseDeployment {
		return nil
	}
	limit := l.OrDefaults().AppsPerPhase
	for i, m := range members {
		if len(m) > limit {
			return fmt.Errorf("phase %s has %d members, over the limit of %d applications per phase (fix: split it into phases of at most %d members, e.g. by a label, or raise the agent's --%s)",
				p.Phases[i].Name, len(m), limit, limit, spec.FlagMaxAppsPerPhase)
		}
	}
	return nil
}

// manyHooks warns, when a rollout starts, about each phase that declares more than
// spec.ManyHooks hooks and checks: they all run (at most --max-hooks-per-phase and
// --max-checks-per-phase at once), but seed 000 asks for a warning.
func (ps *pass) manyHooks() {
	for _, ph := range ps.p.Phases {
		if msg, many := spec.ManyHooksWarning(ph); many {
			ps.emit(ps.st.Rollout, EvManyHooks, msg)
		}
	}
}

// LimitWarnings are what the agent would say of a rollout of p over the line-up phases
// (Lineup) under limits l before it admits anyone: each phase with more than
// spec.ManyHooks hooks and checks (a warning), and a phase over the applications per phase
// (the rollout would not start). cmp-phase plan shows them.
func LimitWarnings(p plan.Plan, phases []state.PhaseState, l spec.Limits) []string {
	var out []string
	for _, ph := range p.Phases {
		if msg, many := spec.ManyHooksWarning(ph); many {
			out = append(out, msg)
		}
	}
	members := make([][]string, len(p.Phases))
	for _, ph := range phases {
		if i := slices.IndexFunc(p.Phases, func(x spec.Phase) bool { return x.Name == ph.Name }); i >= 0 {
			members[i] = append(members[i], ph.Members...)
		}
	}
	if err := tooLarge(p, members, l); err != nil {
		out = append(out, "the rollout would not start: "+err.Error())
	}
	return out
}
