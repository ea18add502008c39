package agent

import (
	"context"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/agent/hookrun"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// startHooks lets go of the runs the written ledger recorded (hookrun.Runs.Settle: their
// results forgotten, what they left removed), then starts the runs the engine asks for
// that this process is not running yet.
func (a *Agent) startHooks(ctx context.Context, p *pass, st *state.State, acts []rollout.Action) {
	name, r := p.plan.Rollout, st.Rollout
	a.runs.Settle(ctx, name, st)
	for _, act := range acts {
		if act.Kind != rollout.ActRunHook || (r == nil && act.Phase != rollout.NoPhase) {
			continue
		}
		if id := hookrun.KeyOf(name, st, act); a.runs.Begin(name, id) {
			pa := hookrun.InPlan(p.plan.Phases, r, act) // a track's phase → the plan's
			go a.runs.Go(ctx, a.hookRun(p, revisionOf(st), pa, id, hookrun.Started(st, act), a.childOf(p, st, pa)))
		}
	}
}

// hookRun is the run of act as this pass read it: dest is the child of a per-cluster run
// whose kind reads it (childOf). Once it ended, the rollout is reconciled again.
func (a *Agent) hookRun(p *pass, revision string, act rollout.Action, id string, started time.Time, dest *hookrun.Dest) hookrun.Run {
	name := p.plan.Rollout
	vars := hookrun.Vars(name, a.opts.Namespace, phaseName(p, act.Phase), act, p.children[act.Cluster], a.inventory())
	return hookrun.Run{Key: act.Key, Call: a.hookCall(p, revision, act, id, started, vars), Vars: vars, Dest: dest,
		Ended: func() { a.queue.Add(name) }}
}

// hookCall is the call of one hook run the engine asked for, its hook as declared:
// HOOK_TYPE (Place) is the place its ledger key names.
func (a *Agent) hookCall(p *pass, revision string, act rollout.Action, id string, started time.Time, vars map[string]string) hooks.Call {
	return hooks.Call{Rollout: p.plan.Rollout, Namespace: a.opts.Namespace, Phase: phaseName(p, act.Phase), Revision: revision,
		Cluster: act.Cluster, Place: rollout.HookPlace(act.Key), Hook: act.Hook, IdempotencyKey: id, Server: vars["server"],
		Started: started, Until: act.At}
}

// revisionOf is the revision a run of st belongs to: its rollout's, else the deployed one.
func revisionOf(st *state.State) string {
	if st.Rollout != nil {
		return st.Rollout.Revision
	}
	return st.Deployed
}

func phaseName(p *pass, i int) string {
	if i >= 0 && i < len(p.plan.Phases) {
		return p.plan.Phases[i].Name
	}
	return ""
}
