package agent

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/statestore"
	"github.com/cmp-phase/cmp-phase/internal/status"
)

// pass is what one reconcile of a rollout read: its plan, parent and live children, and
// the reconcile's logger (bound to the rollout).
type pass struct {
	log      *slog.Logger
	plan     *plan.Plan
	parent   *v1alpha1.Application // nil when missing
	phaseGen int64                 // the highest PHASE_GEN of its parents (every shard's)
	children map[string]*v1alpha1.Application
	observed map[string]rollout.Observation
	shards   []shardPass // a sharded rollout's shards, by K (nil: one parent renders it all)
	// shardConflict: why the rollout's plans disagree on its shards (holds it; "": agree)
	shardConflict string
	// moves: the children this pass moved; moreMoves: the state moves more than this pass
	// may (movesPerPass), the next pass comes at once
	moves       int
	moreMoves   bool
	movingSince time.Time // when this pass started moving children
}

// Reconcile runs one engine step for a rollout: observe (from the caches), decide
// (re-deciding on a write conflict), write the state, then do what the engine asked: make
// the parent re-render, publish Events, delete removed children, start syncs. It returns
// when to come back at the latest (zero: on the next watch event or resync). An error has a
// kind (policyOf says what it means); the caller logs it, once.
func (a *Agent) Reconcile(ctx context.Context, name string) (time.Time, error) {
	return a.reconcile(ctx, name, a.log.With("rollout", name))
}

// reconcile is Reconcile with the logger bound to the rollout.
func (a *Agent) reconcile(ctx context.Context, name string, log *slog.Logger) (time.Time, error) {
	began := time.Now()
	p, err := a.read(name)
	if err != nil || p == nil {
		return time.Time{}, err
	}
	a.metrics.pass.WithLabelValues(name, "read").Observe(time.Since(began).Seconds())
	p.log = log
	if held, next, err := a.parentLifecycle(ctx, p); held || err != nil {
		return next, err
	}
	now := a.now()
	var acts []rollout.Action
	rebuilt := false
	store, trace := a.stateStore(name)
	fleet := a.fleetStop()
	stateBegan := time.Now()
	next, wrote, err := store.UpdateCM(ctx, trace.decide(func(data map[string]string, cur *state.State) (statestore.Edit, error) {
		c := controls(data, p.plan, now)
		c.Fleet = fleet
		began := time.Now()
		n, as, rb, err := a.decide(p, cur, c, now)
		a.metrics.decide.WithLabelValues(name).Observe(time.Since(began).Seconds())
		acts, rebuilt = as, rb
		if err != nil {
			return statestore.Edit{}, err
		}
		if n != cur && a.faults.BeforeWrite != nil {
			a.faults.BeforeWrite(name, n.Generation)
		}
		return statestore.Edit{Next: n, Data: dataEdits(name, as, n)}, nil
	}))
	if err != nil {
		return time.Time{}, trace.failure(err, "state ConfigMap "+a.opts.Namespace+"/"+store.Name)
	}
	a.metrics.pass.WithLabelValues(name, "state").Observe(time.Since(stateBegan).Seconds())
	var shown map[string]string // what the parent's annotations and the metrics say: one computation
	if next != nil {
		shown = status.Parent(name, next)
		a.metrics.observe(name, next, shown[contract.ParentWaitingFor])
	}
	if wrote {
		a.metrics.writes.WithLabelValues(name).Inc()
		log.Info("state written", "generation", next.Generation, "view", next.ViewGeneration)
		if rebuilt {
			a.warn(p, "StateRebuilt", fmt.Sprintf("state ConfigMap %s was missing: rebuilt at generation %d from the live children's revision annotations", store.Name, next.Generation))
		}
		if a.faults.AfterWrite != nil {
			a.faults.AfterWrite(name, next.Generation)
		}
	}
	a.publishEvents(p, acts)
	a.annotateParent(ctx, p, next, shown)
	if next != nil && next.RemovedRevision != "" {
		return a.removeRollout(ctx, p, next)
	}
	actBegan := time.Now()
	defer func() { a.metrics.pass.WithLabelValues(name, "act").Observe(time.Since(actBegan).Seconds()) }()
	return a.act(ctx, p, next, acts)
}

// read gathers a rollout's plan, parent and children from the caches; nil when the rollout
// has no plan (any more).
func (a *Agent) read(name string) (*pass, error) {
	cm, err := a.caches.plans.Get(contract.PlanConfigMap(name))
	if apierrors.IsNotFound(err) {
		a.forget(name)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read plan of %s: %w", name, err)
	}
	pl, err := plan.Decode(cm, a.exprs)
	if err != nil {
		return nil, invalid(err, "let the parent render the plan again, with the sidecar and the agent at the same version")
	}
	p := &pass{plan: pl,
		children: map[string]*v1alpha1.Application{}}
	if pl.Parent != "" {
		a.parents.set(pl.Parent, name)
		if parent, err := a.caches.apps.Get(pl.Parent); err == nil {
			p.parent, p.phaseGen = parent, PhaseGen(parent)
		}
	}
	if p.shards, p.shardConflict, err = a.readShards(name, cm); err != nil {
		return nil, err
	}
	p.phaseGen = maxPhaseGen(p.phaseGen, p.shards)
	apps, err := a.caches.children(name)
	if err != nil {
		return nil, err
	}
	for _, app := range apps {
		p.children[app.Name] = app
	}
	p.observed = a.memoryOf(name).observe(apps)
	return p, nil
}

// decide is the pure part of a reconcile, given what was read: rebuild a lost state when
// children exist, then step the engine.
func (a *Agent) decide(p *pass, cur *state.State, c *control.Controls, now time.Time) (*state.State, []rollout.Action, bool, error) {
	inv := a.inventory()
	if inv == nil {
		return nil, nil, false, fmt.Errorf("the cluster inventory is not published yet")
	}
	base, rebuilt := cur, false
	hold := p.shardConflict
	if hold == "" {
		hold = shardHold(p.shards, cur, a.shardsSince(p.plan.Rollout, p.shards), now, 2*a.opts.ConfirmAfter)
	}
	if hold != "" && cur == nil {
		p.log.Warn("rollout held by a shard", "reason", hold)
		return nil, nil, false, nil // nothing deployed yet: nothing to write until every shard is there
	}
	if cur == nil && (p.phaseGen > 0 || len(p.children) > 0) {
		live := map[string]string{}
		for name, o := range p.observed {
			live[name] = o.Revision
		}
		st, err := rollout.Rebuild(*p.plan, p.plan.Others, live, p.phaseGen)
		if err != nil {
			return nil, nil, false, failClosed(err)
		}
		st.ViewGeneration = st.Generation // the renderer needs it: PHASE_GEN names a state it cannot see
		base, rebuilt = st, true
	}
	sp := &spec.Spec{Name: p.plan.Rollout, Namespace: p.plan.Namespace}
	subjects, err := a.renderer.Subjects(p.plan.Rollout, p.plan.Revision, p.plan.Body, inv)
	if err != nil {
		return nil, nil, false, failClosed(err)
	}
	changed, err := a.renderer.Changed(render.Input{Spec: sp, Inventory: inv, State: base}, p.plan.Revision, p.plan.Body, subjects)
	if err != nil {
		return nil, nil, false, failClosed(err)
	}
	obs := rollout.Observed{Subjects: subjects, Changed: changed, Children: p.observed, Hooks: a.hookResults(p.plan.Rollout, base), Controls: c,
		SpecGone: specGone(p.parent), SpecBack: specBack(p.parent), PlanFresh: base != nil && p.plan.Generation >= base.ViewGeneration}
	obs.FleetWindows, obs.ProjectWindows = a.fleetWindows(), a.projectWindows(p.children)
	obs.TrackHooks = a.trackHookResults(p.plan.Rollout, base)
	obs.ShardHold, obs.Limits = hold, a.opts.Limits
	n, acts, err := rollout.Step(*p.plan, base, obs, now)
	if err != nil {
		return nil, nil, false, failClosed(err)
	}
	return n, acts, rebuilt, nil
}
