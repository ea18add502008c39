package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/agent/clustersource"
	"github.com/cmp-phase/cmp-phase/internal/agent/rerender"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// act does the I/O the engine asked for, after the state was written, as the re-render
// protocol (rerender.Decide) says: point the parent's PHASE_GEN at the state, apply the
// children the state moves when that is safe (enact), ask again for a render that did not
// arrive; once the parent's render of the state has arrived, carry out decided removals
// and sync admitted children that do not sync themselves.
func (a *Agent) act(ctx context.Context, p *pass, st *state.State, acts []rollout.Action) (time.Time, error) {
	requeue := rollout.RequeueAt(acts)
	if st == nil {
		return requeue, nil
	}
	a.startHooks(ctx, p, st, acts) // hooks need no re-render: they gate what comes next
	if st.Rollout != nil && !st.Rollout.Status.IsTerminal() {
		_ = a.syncAgain(ctx, p, acts) // a retried sync needs none either: the child runs its revision
	}
	switch {
	case p.plan.Parent == "":
		return requeue, nil
	case p.shards != nil:
		return a.actShards(ctx, p, st, requeue)
	}
	return a.actOnParent(ctx, p, st, requeue)
}

// actOnParent carries out the re-render protocol on the rollout's one parent: name the
// state, ask again, enact the moves once the render arrived, then what follows it.
func (a *Agent) actOnParent(ctx context.Context, p *pass, st *state.State, requeue time.Time) (time.Time, error) {
	name, now := p.plan.Rollout, a.now()
	mem := a.remembered(name)
	d := rerender.Decide(viewOf(p.parent, p.plan.Generation, st.ViewGeneration, mem), now, a.opts.ConfirmAfter)
	if d.SetPhaseGen {
		// first: nothing moves before the parent names the state that moves it (a parent
		// naming an older one would show the moved children OutOfSync, and a person's
		// sync of it would apply its older render)
		var err error
		if mem, d.Asked, err = a.namePhaseGen(ctx, p, p.plan.Parent, p.parent, st.Generation, mem, d.Asked); err != nil {
			return requeue, err
		}
	}
	if d.AskAgain {
		if err := a.askAgain(ctx, p, st); err != nil {
			return requeue, err
		}
	}
	if d.Confirmed && !mem.asked.IsZero() {
		a.metrics.Rerender.WithLabelValues(name).Observe(now.Sub(mem.asked).Seconds())
	}
	mem.asked = d.Asked
	a.remember(name, mem)
	if d.Enact {
		if err := a.enact(ctx, p, st); err != nil {
			return requeue, err
		}
		if p.moreMoves {
			requeue = earliest(requeue, now)
		}
		defer a.warmNext(p, st) // last: the pass's own deletes and syncs come first
	}
	if !d.Confirmed {
		return earliest(requeue, d.Requeue), nil
	}
	return requeue, a.afterRender(ctx, p, st)
}

// afterRender does what waits for the parent's render of the state: the removals the state
// records, not only this pass's actions (a delete decided while the render had not arrived
// is carried out on a later pass, whose state is unchanged), then the syncs of admitted
// children that do not sync themselves.
func (a *Agent) afterRender(ctx context.Context, p *pass, st *state.State) error {
	for _, c := range st.Removing {
		if err := a.deleteChild(ctx, p, c); err != nil {
			return err
		}
	}
	return a.startSyncs(ctx, p)
}

// askAgain re-requests a re-render that did not arrive: PHASE_GEN again (a no-op when it is
// set) and, when configured, a hard refresh of the parent.
func (a *Agent) askAgain(ctx context.Context, p *pass, st *state.State) error {
	return a.askAgainOf(ctx, p, p.plan.Parent, p.parent, st)
}

// askAgainOf is askAgain of a named parent (a shard's), cached as the cache holds it (nil:
// not cached). PHASE_GEN is read and written only when the cached parent does not name the
// generation already: reading a parent of thousands of children costs a second under load.
func (a *Agent) askAgainOf(ctx context.Context, p *pass, parent string, cached *v1alpha1.Application, st *state.State) error {
	a.warn(p, "RerenderNotConfirmed", fmt.Sprintf("the parent %s has not rendered state generation %d after %s; asking again", parent, st.ViewGeneration, a.opts.ConfirmAfter))
	if cached == nil || rerender.PhaseGen(cached) != st.Generation {
		if err := rerender.SetPhaseGen(ctx, a.argo, a.opts.Namespace, parent, st.Generation); err != nil {
			return err
		}
	}
	if !a.opts.HardRefresh {
		return nil
	}
	patch := []byte(`{"metadata":{"annotations":{"` + v1alpha1.AnnotationKeyRefresh + `":"` + string(v1alpha1.RefreshTypeHard) + `"}}}`)
	_, err := a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Patch(ctx, parent, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("hard refresh of %s: %w", parent, err)
	}
	a.metrics.RefreshedParent(p.plan.Rollout)
	return nil
}

// deleteChild deletes a child the engine decided to remove (Argo CD's finalizer, when the
// child has one, removes its resources). Gone already is fine.
func (a *Agent) deleteChild(ctx context.Context, p *pass, child string) error {
	app, live := p.children[child]
	if !live {
		return nil
	}
	back, err := a.clusterRegistered(ctx, app.Labels[contract.LabelCluster])
	if errors.Is(err, clustersource.ErrUnproven) {
		a.warn(p, "RemovalRefused", fmt.Sprintf("not deleting %s: %v", child, err))
		return nil
	}
	if err != nil || back {
		if back {
			a.warn(p, "RemovalRefused", fmt.Sprintf("not deleting %s: the Secret of cluster %s is there again (the next reconcile keeps the child)", child, app.Labels[contract.LabelCluster]))
		}
		return err
	}
	bg := metav1.DeletePropagationBackground
	err = a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Delete(ctx, child, metav1.DeleteOptions{PropagationPolicy: &bg})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete child %s: %w", child, err)
	}
	p.log.Info("child deleted", "child", child)
	return nil
}

// clusterRegistered re-checks, live (not from a cache), whether a cluster is registered:
// the last proof asked for before a child is deleted.
func (a *Agent) clusterRegistered(ctx context.Context, cluster string) (bool, error) {
	return a.clusters().Registered(ctx, cluster)
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// remember keeps what the agent knows of a rollout's re-render (a zero asked and since:
// forget it).
func (a *Agent) remember(name string, n named) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n.asked.IsZero() && n.since.IsZero() {
		delete(a.asked, name)
		return
	}
	a.asked[name] = n
}

// remembered is what the agent knows of a rollout's re-render (zero: nothing).
func (a *Agent) remembered(name string) named {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.asked[name]
}

// publishEvents turns the engine's events into Kubernetes Events on the parent (visible in
// the Argo CD UI) and log lines.
func (a *Agent) publishEvents(p *pass, acts []rollout.Action) {
	for _, act := range acts {
		if act.Kind != rollout.ActEvent {
			continue
		}
		kind := corev1.EventTypeNormal
		if act.Warning {
			kind = corev1.EventTypeWarning
		}
		a.events.Event(a.parentRef(p), kind, act.Reason, act.Message)
		a.log.Info("rollout event", "rollout", p.plan.Rollout, "event", act.Reason, "message", act.Message)
	}
}

func (a *Agent) warn(p *pass, reason, msg string) {
	a.events.Event(a.parentRef(p), corev1.EventTypeWarning, reason, msg)
	a.log.Warn("rollout warning", "rollout", p.plan.Rollout, "event", reason, "message", msg)
}

// parentRef is the parent Application as an Event's involved object (Argo CD's UI lists a
// parent's Events by name, namespace and UID).
func (a *Agent) parentRef(p *pass) *corev1.ObjectReference {
	ref := a.applicationRef(p.plan.Parent)
	if p.parent != nil {
		ref.UID, ref.ResourceVersion = p.parent.UID, p.parent.ResourceVersion
	}
	return ref
}

// applicationRef is an Application of the agent's namespace as an Event's involved object.
func (a *Agent) applicationRef(name string) *corev1.ObjectReference {
	return &corev1.ObjectReference{APIVersion: "argoproj.io/v1alpha1", Kind: "Application", Namespace: a.opts.Namespace, Name: name}
}
