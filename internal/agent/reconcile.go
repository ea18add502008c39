package agent

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/cmp-phase/cmp-phase/internal/agent/failure"
	"github.com/cmp-phase/cmp-phase/internal/agent/rerender"
	"github.com/cmp-phase/cmp-phase/internal/agent/shardset"
	"github.com/cmp-phase/cmp-phase/internal/agent/watchlag"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
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
	ctx      context.Context // the pass's: renders end with it
	log      *slog.Logger
	plan     *plan.Plan
	parent   *v1alpha1.Application // nil when missing
	phaseGen int64                 // the highest PHASE_GEN of its parents (every shard's)
	children map[string]*v1alpha1.Application
	observed map[string]rollout.Observation
	shards   []shardset.Member // a sharded rollout's shards, by K (nil: one parent renders it all)
	// shardConflict: why the rollout's plans disagree on its shards (holds it; "": agree)
	shardConflict string
	// moves: the children this pass moved; moreMoves: the state moves more than this pass
	// may (movesPerPass), the next pass comes at once
	moves       int
	moreMoves   bool
	movingSince time.Time // when this pass started moving children
	// decision is what the engine decided on this pass (rollout.Decide): the state written,
	// the moves and warms the agent carries out
	decision rollout.Decision
}

// context is the pass's context (Background for a pass a test built).
func (p *pass) context() context.Context {
	if p.ctx == nil {
		return context.Background()
	}
	return p.ctx
}

// Reconcile runs one engine step for a rollout: observe (from the caches), decide
// (re-deciding on a write conflict), write the state, then do what the engine asked: make
// the parent re-render, publish Events, delete removed children, start syncs. It returns
// when to come back at the latest (zero: on the next watch event or resync). An error has a
// kind (failure.PolicyOf says what it means); the caller logs it, once.
func (a *Agent) Reconcile(ctx context.Context, name string) (time.Time, error) {
	return a.reconcile(ctx, name, a.log.With("rollout", name))
}

// reconcile is Reconcile with the logger bound to the rollout.
func (a *Agent) reconcile(ctx context.Context, name string, log *slog.Logger) (time.Time, error) {
	began := time.Now()
	p, err := a.read(ctx, name)
	if err != nil || p == nil {
		return time.Time{}, err
	}
	a.metrics.Pass.WithLabelValues(name, "read").Observe(time.Since(began).Seconds())
	p.log = log
	if in, ok := watchlag.Newest(maps.Values(p.children), p.parent); ok {
		read := time.Now()
		lag, fresh := a.metrics.InputsRead(name, in, read)
		log.Debug("pass read its inputs", "read", read, "newest", in.Name, "resourceVersion", in.ResourceVersion,
			"changed", in.Changed, "lag", lag.Seconds(), "fresh", fresh)
	}
	if held, next, err := a.parentLifecycle(ctx, p); held || err != nil {
		return next, err
	}
	return a.decideAndAct(ctx, p, nil)
}

// decideAndAct is one engine pass over what p read: decide (re-deciding on a write
// conflict), write the state (the agent's one state write path), then carry the decision
// out. dismantle says every child goes (a deleted parent, or a removed spec); nil: a
// rollout pass.
func (a *Agent) decideAndAct(ctx context.Context, p *pass, dismantle *rollout.Dismantle) (time.Time, error) {
	name, now := p.plan.Rollout, a.now()
	store, trace := a.stateStore(name)
	fleet := a.fleetStop()
	stateBegan := time.Now()
	var prev *state.State // the state the write replaced: the last one decided over
	next, wrote, err := store.UpdateCM(ctx, trace.decide(func(data map[string]string, cur *state.State) (statestore.Edit, error) {
		prev = cur
		c := controls(data, p.plan, now)
		c.Fleet = fleet
		began := time.Now()
		d, err := a.decide(p, cur, c, dismantle, now)
		a.metrics.Decide.WithLabelValues(name).Observe(time.Since(began).Seconds())
		p.decision = d
		if err != nil {
			return statestore.Edit{}, err
		}
		if d.Next != cur && a.faults.BeforeWrite != nil {
			a.faults.BeforeWrite(name, d.Next.Generation)
		}
		return statestore.Edit{Next: d.Next, Data: dataEdits(name, d.Actions, d.Next)}, nil
	}))
	if err != nil {
		return time.Time{}, trace.failure(err, "state ConfigMap "+a.opts.Namespace+"/"+store.Name)
	}
	a.metrics.Pass.WithLabelValues(name, "state").Observe(time.Since(stateBegan).Seconds())
	a.written(p, prev, next, wrote)
	acts := p.decision.Actions
	a.publishEvents(p, acts)
	if p.decision.Dismantling {
		return a.actDismantle(ctx, p, next)
	}
	a.annotateParent(ctx, p, next, a.shown(name, next))
	if next != nil && next.RemovedRevision != "" {
		return a.removeRollout(ctx, p) // a person confirmed the spec is gone: its children go
	}
	actBegan := time.Now()
	defer func() { a.metrics.Pass.WithLabelValues(name, "act").Observe(time.Since(actBegan).Seconds()) }()
	return a.act(ctx, p, next, acts)
}

// written counts, logs and measures a state write (and runs the tests' fault hook after it).
func (a *Agent) written(p *pass, prev, next *state.State, wrote bool) {
	if !wrote {
		return
	}
	a.metrics.Writes.WithLabelValues(p.plan.Rollout).Inc()
	a.metrics.Written(p.plan.Rollout, prev, next, a.now())
	p.log.Info("state written", "generation", next.Generation, "view", next.ViewGeneration)
	if a.faults.AfterWrite != nil {
		a.faults.AfterWrite(p.plan.Rollout, next.Generation)
	}
}

// shown is what the parent's annotations and the metrics say of st: one computation.
func (a *Agent) shown(name string, st *state.State) map[string]string {
	if st == nil {
		return nil
	}
	shown := status.Parent(name, st)
	a.metrics.Observe(name, st, shown[contract.ParentWaitingFor])
	return shown
}

// read gathers a rollout's plan, parent and children from the caches; nil when the rollout
// has no plan (any more).
func (a *Agent) read(ctx context.Context, name string) (*pass, error) {
	cm, err := a.caches.plans.Get(contract.PlanConfigMap(name))
	if apierrors.IsNotFound(err) {
		a.forget(name)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read plan of %s: %w", name, err)
	}
	pl, err := plan.Decode(plan.Manifest{Namespace: cm.Namespace, Name: cm.Name, Labels: cm.Labels, Annotations: cm.Annotations, Data: cm.Data}, a.exprs)
	if err != nil {
		return nil, failure.InvalidInput(err, "let the parent render the plan again, with the sidecar and the agent at the same version")
	}
	p := &pass{ctx: ctx, plan: pl,
		children: map[string]*v1alpha1.Application{}}
	if pl.Parent != "" {
		a.parents.Set(pl.Parent, name)
		parent, err := a.parentApp(ctx, pl.Parent)
		if err == nil {
			p.parent, p.phaseGen = parent, rerender.PhaseGen(parent)
		} else if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	if p.shards, p.shardConflict, err = a.readShards(ctx, name, cm); err != nil {
		return nil, err
	}
	p.phaseGen = shardset.MaxPhaseGen(p.phaseGen, p.shards)
	apps, err := a.caches.children(name)
	if err != nil {
		return nil, err
	}
	for _, app := range apps {
		p.children[app.Name] = app
	}
	p.observed = a.memoryOf(name).Observe(apps)
	return p, nil
}

// decide is the pure part of a reconcile, given what was read: gather the observation and
// ask the engine (rollout.Decide).
func (a *Agent) decide(p *pass, cur *state.State, c *control.Controls, dismantle *rollout.Dismantle, now time.Time) (rollout.Decision, error) {
	if dismantle != nil {
		return rollout.Decide(*p.plan, cur, a.observeDismantle(p, cur, c, dismantle), now)
	}
	inv := a.inventory()
	if inv == nil {
		return rollout.Decision{}, fmt.Errorf("the cluster inventory is not published yet")
	}
	hold := p.shardConflict
	if hold == "" {
		hold = shardset.Hold(p.shards, cur, a.shardsSince(p.plan.Rollout, p.shards), now, 2*a.opts.ConfirmAfter)
	}
	if hold != "" && cur == nil {
		p.log.Warn("rollout held by a shard", "reason", hold)
	}
	obs, err := a.observe(p, cur, c, inv)
	if err != nil {
		return rollout.Decision{}, failure.Closed(err)
	}
	obs.ShardHold, obs.Limits, obs.PhaseGen = hold, a.opts.Limits, p.phaseGen
	obs.Warmed, obs.NoWarm = a.warmSeen(p)
	d, err := rollout.Decide(*p.plan, cur, obs, now)
	if err != nil {
		return rollout.Decision{}, failure.Closed(err)
	}
	return d, nil
}

// observeDismantle is the engine's view of a rollout whose children all go: which live,
// where the plan places them (SubjectsMissing when it cannot), whether the parent runs an
// operation, and how the post-delete hooks it started ended.
func (a *Agent) observeDismantle(p *pass, cur *state.State, c *control.Controls, dismantle *rollout.Dismantle) rollout.Observed {
	obs := rollout.Observed{Dismantle: dismantle, Controls: c, Children: make(map[string]rollout.Observation, len(p.children)),
		Hooks: a.runs.AfterDeleteResults(p.plan.Rollout, cur)}
	for name := range p.children {
		obs.Children[name] = p.observed[name]
	}
	// busy too until Argo CD took the parent's delete (removed its resources finalizer): a refresh
	// that read it before may still auto-sync it, applying a deleted child again behind the order
	obs.ParentBusy = p.parent != nil && (viewOf(p.parent, 0, 0, named{}).Busy ||
		p.parent.DeletionTimestamp != nil && slices.ContainsFunc(p.parent.Finalizers, contract.IsResourcesFinalizer))
	var err error
	if inv := a.inventory(); inv != nil {
		obs.Subjects, err = a.renderer.Subjects(p.context(), p.plan.Rollout, p.plan.Revision, p.plan.Body, inv)
	}
	if obs.SubjectsMissing = a.inventory() == nil || err != nil; obs.SubjectsMissing {
		p.log.Info("children may wait to be placed in their phases", "error", err)
	}
	return obs
}

// observe is the engine's view of what p read: the plan's subjects, which of them change,
// the live children, the hooks' results, a person's edits, the parent's render and the
// windows that apply. With no state yet, what changes is judged against none.
func (a *Agent) observe(p *pass, cur *state.State, c *control.Controls, inv *inventory.Inventory) (rollout.Observed, error) {
	sp := &spec.Spec{Name: p.plan.Rollout, Namespace: p.plan.Namespace}
	subjects, err := a.renderer.Subjects(p.context(), p.plan.Rollout, p.plan.Revision, p.plan.Body, inv)
	if err != nil {
		return rollout.Observed{}, err
	}
	changedOf := func(st *state.State) (map[string]bool, error) {
		return a.renderer.Changed(render.Input{Spec: sp, Inventory: inv, State: st}, p.plan.Revision, p.plan.Body, subjects)
	}
	changed, err := changedOf(cur)
	var ifRebuilt map[string]bool
	if rebuilt, _ := rollout.Rebuilt(*p.plan, cur, p.observed, p.phaseGen); rebuilt != nil && err == nil {
		ifRebuilt, err = changedOf(rebuilt) // against the state Decide rebuilds (its error is Decide's to report)
	}
	if err != nil {
		return rollout.Observed{}, err
	}
	obs := rollout.Observed{Subjects: subjects, Changed: changed, ChangedIfRebuilt: ifRebuilt, Children: p.observed, Hooks: a.runs.Results(p.plan.Rollout, cur), Controls: c,
		SpecGone: specGone(p.parent), SpecBack: specBack(p.parent), PlanFresh: cur != nil && p.plan.Generation >= cur.ViewGeneration}
	obs.FleetWindows, obs.ProjectWindows = a.fleetWindows(), a.projectWindows(p.children)
	obs.TrackHooks = a.runs.TrackResults(p.plan.Rollout, cur)
	maps.Copy(obs.Hooks, a.runs.AfterDeleteResults(p.plan.Rollout, cur)) // postdelete/… keys: apart from every phase's
	return obs, nil
}
