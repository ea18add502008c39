package agent

import (
	"context"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/agent/rerender"
	"github.com/cmp-phase/cmp-phase/internal/agent/shardset"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// actShards is act for a sharded rollout: the re-render protocol runs per shard, and only
// for shards whose view the state changed (a shard none of whose children changed is not
// re-rendered); the agent moves a touched shard's children itself when that shard's
// parent allows it. Removals and syncs wait until every shard's render has arrived. The
// next batch is warmed as for a rollout of one parent.
func (a *Agent) actShards(ctx context.Context, p *pass, st *state.State, requeue time.Time) (time.Time, error) {
	defer a.warmNext(p, st) // last, as for one parent: the children the rollout admits next, in any shard
	now, confirmed := a.now(), true
	views := shardset.Views(st, p.shards)
	for _, s := range p.shards {
		d, err := a.rerenderShard(ctx, p, s, st, shardset.Digest(views, st, s), now)
		if err != nil {
			return requeue, err
		}
		if !d.Confirmed {
			confirmed = false
			requeue = earliest(requeue, d.Requeue)
		}
	}
	if p.moreMoves {
		requeue = earliest(requeue, now)
	}
	if !confirmed {
		return requeue, nil
	}
	for _, c := range st.Removing {
		if err := a.deleteChild(ctx, p, c); err != nil {
			return requeue, err
		}
	}
	return requeue, a.startSyncs(ctx, p)
}

// rerenderShard runs the re-render protocol for one shard: confirmed at once when its plan
// carries the view the state gives it (view: its digest, render.ShardViews); otherwise
// rerender.Decide with the shard's parent, as
// if its plan were of an older generation (the shard's render of this view has not arrived).
func (a *Agent) rerenderShard(ctx context.Context, p *pass, s shardset.Member, st *state.State, view string, now time.Time) (rerender.Decision, error) {
	key := shardKey(p.plan.Rollout, s.Shard.K)
	if !shardset.Touched(s, view) {
		a.remember(key, named{})
		return rerender.Decision{Confirmed: true}, nil // untouched, or its render arrived
	}
	if s.App == nil {
		return rerender.Decision{}, nil // its parent is missing: shardset.Hold holds the rollout
	}
	mem := a.remembered(key)
	if mem.since.IsZero() {
		mem.since = now // its view differs from its plan from now on, however often asked
	}
	d := rerender.Decide(viewOf(s.App, min(s.PlanGen, st.ViewGeneration-1), st.ViewGeneration, mem), now, a.opts.ConfirmAfter)
	if d.SetPhaseGen { // first, as for an unsharded parent (act)
		var err error
		if mem, d.Asked, err = a.namePhaseGen(ctx, p, s.Parent, s.App, st.Generation, mem, d.Asked, "shard", s.Shard.String()); err != nil {
			return d, err
		}
	}
	if d.AskAgain {
		if err := a.askAgainOf(ctx, p, s.Parent, s.App, st); err != nil {
			return d, err
		}
	}
	mem.asked = d.Asked
	a.remember(key, mem)
	if d.Enact {
		if err := a.enactOnly(ctx, p, st, s.Shard.Owns); err != nil {
			return d, err
		}
	}
	return d, nil
}
