package agent

import (
	"github.com/cmp-phase/cmp-phase/internal/agent/warm"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// warmNext queues the warms of the children the rollout admits next (the Decision's: the
// rest of the current phase's batch or the next phase's first), rendered as their move
// will render them; once per state generation.
func (a *Agent) warmNext(p *pass, st *state.State) {
	env := p.plan.Children
	if a.warm == nil || st == nil || !st.Rollout.Active() || env == nil || env.Namespace != a.opts.Namespace ||
		!a.warm.FirstLook(p.plan.Rollout, st.Generation) {
		return
	}
	keys := p.decision.Warm
	if len(keys) == 0 {
		return
	}
	docs, err := a.renderer.Children(a.childInput(p, p.decision.WarmState), keys)
	if err != nil {
		p.log.Debug("no manifest warm: render of the next batch failed", "error", err)
		return
	}
	for _, k := range keys {
		if live := p.children[k]; live != nil {
			if rev, ok := warm.Warmable(live, docs[k]); ok {
				a.warm.Add(warm.Job{App: live.Name, Namespace: live.Namespace, Revision: rev})
			}
		}
	}
}

// warmSeen is what the engine needs to know of this rollout's warms (rollout.Observed's
// Warmed and NoWarm): the generation warmNext last looked at, and whether a pass reaches
// warmNext at all (a warmer, a parent, children in the agent's namespace). A sharded
// rollout reaches it too (actShards): its next batch is warmed in whichever shard it is.
func (a *Agent) warmSeen(p *pass) (int64, bool) {
	env := p.plan.Children
	return a.warm.Looked(p.plan.Rollout), a.warm == nil || p.plan.Parent == "" || env == nil || env.Namespace != a.opts.Namespace
}
