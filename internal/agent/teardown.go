package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/agent/failure"
	"github.com/cmp-phase/cmp-phase/internal/agent/rerender"
	"github.com/cmp-phase/cmp-phase/internal/agent/shardset"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// teardownPoll is how soon a teardown looks again while children are still being deleted
// (their deletes wake it too).
const teardownPoll = 5 * time.Second

// parentLifecycle handles what the parent's own life asks of a rollout, before the engine
// runs: it keeps the agent's finalizer on every parent, and on a parent being deleted it
// removes the children in the deletion order (a cascading delete: Argo CD's resources
// finalizer on when the deletion began) or leaves them (without) and lets the parent go.
// held says the engine must not run on this pass: the parent is going or gone.
func (a *Agent) parentLifecycle(ctx context.Context, p *pass) (held bool, next time.Time, err error) {
	if p.parent == nil {
		return p.plan.Parent != "" && a.deploysNothing(p.plan.Rollout), time.Time{}, nil
	}
	ours := slices.Contains(p.parent.Finalizers, contract.FinalizerChildren)
	if p.parent.DeletionTimestamp == nil {
		if err := a.keepFinalizer(ctx, p, ours); err != nil {
			p.log.Warn("parent finalizer not updated", "parent", p.parent.Name, "error", err) // the next pass tries again
		}
		return false, time.Time{}, nil
	}
	if !ours {
		return true, time.Time{}, nil // deleted without cascading: the children stay, as Argo CD leaves them
	}
	if !a.cascades(ctx, p) {
		p.log.Info("parent deleted without cascading: its children stay", "parent", p.parent.Name)
		return true, time.Time{}, a.setFinalizers(ctx, p.parent, withFinalizer(p.parent.Finalizers, false))
	}
	next, err = a.teardown(ctx, p)
	return true, next, err
}

// cascades reports whether a parent being deleted takes its children: Argo CD's resources
// finalizer was on it when its deletion began — on it now, or seen by the watch
// (sawCascade), or recorded on the parent (AnnotationTeardown, written here the first
// time, so a restarted agent goes on). A non-cascading `argocd app delete --cascade=false`
// takes the resources finalizer off before it deletes, so the agent's finalizer alone says
// nothing.
func (a *Agent) cascades(ctx context.Context, p *pass) bool {
	if p.parent.Annotations[contract.AnnotationTeardown] != "" {
		return true
	}
	if !slices.ContainsFunc(p.parent.Finalizers, contract.IsResourcesFinalizer) && !a.cascading.seen(p.parent.UID) {
		return false
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{contract.AnnotationTeardown: "cascade"}}})
	if _, err := a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Patch(ctx, p.parent.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		p.log.Warn("parent teardown not recorded", "parent", p.parent.Name, "error", err) // the watch's memory still says so
	}
	return true
}

// deploysNothing reports whether the cached state of a rollout deploys no child and runs no
// rollout (or there is none): a rollout whose parent is gone then has nothing to drive.
func (a *Agent) deploysNothing(name string) bool {
	st, err := a.cachedState(name)
	return err == nil && (st == nil || (len(st.Children) == 0 && !st.Rollout.Active()))
}

// keepFinalizer adds the agent's finalizer to a parent that lacks it: on every parent, not
// only on one with Argo CD's resources finalizer, because `argocd app delete` (cascading)
// adds that finalizer and deletes the parent at once, faster than any watch — a parent that
// got the agent's finalizer only then kept its children by a race (found by
// test/freshinstall). Whether a delete cascades is read when it begins (cascades).
func (a *Agent) keepFinalizer(ctx context.Context, p *pass, ours bool) error {
	if ours {
		return nil
	}
	if err := a.setFinalizers(ctx, p.parent, withFinalizer(p.parent.Finalizers, true)); err != nil {
		return err
	}
	p.log.Info("parent finalizer added", "parent", p.parent.Name, "finalizer", contract.FinalizerChildren)
	return nil
}

// teardown removes a deleted parent's children in the plan's deletion order, one group at a
// time (each gone before the next), then records that in the state and lets the parent go:
// an engine pass that dismantles (rollout.Dismantle). Every step is derived from the live
// children and the state, so a restart goes on.
func (a *Agent) teardown(ctx context.Context, p *pass) (time.Time, error) {
	return a.decideAndAct(ctx, p, &rollout.Dismantle{How: "with the parent " + p.parent.Name, Hold: shardset.TeardownHold(p.shards)})
}

// removeRollout carries out a removal a person confirmed (st.RemovedRevision, the spec gone
// from git): the children go in the deletion order as with a deleted parent (held by a
// pause and the fleet-wide stop), then the state records that it deploys nothing and the
// parent re-renders, now to nothing.
func (a *Agent) removeRollout(ctx context.Context, p *pass) (time.Time, error) {
	return a.decideAndAct(ctx, p, &rollout.Dismantle{How: "its spec is gone from git", Removal: true})
}

// actDismantle carries out a dismantling pass's decision: delete the next group, release the
// deleted parent once every child is gone, or have the parent of a removed spec re-render.
func (a *Agent) actDismantle(ctx context.Context, p *pass, st *state.State) (time.Time, error) {
	d := p.decision
	var requeue time.Time
	for _, act := range d.Actions {
		if act.Kind == rollout.ActRequeue {
			requeue = earliest(requeue, act.At)
			p.log.Info("children removal waits", "reason", act.Message)
		}
	}
	if err := a.deleteGroup(ctx, p, d.Delete, d.DeleteWhy); err != nil {
		return requeue, err
	}
	if st != nil {
		a.startHooks(ctx, p, st, d.Actions) // post-delete hooks, once every child is gone
	}
	switch {
	case d.Release && p.parent != nil:
		if err := a.setFinalizers(ctx, p.parent, withFinalizer(p.parent.Finalizers, false)); err != nil {
			return requeue, err
		}
		a.cascading.forget(p.parent.UID)
		p.log.Info("parent released", "parent", p.parent.Name)
	case d.SetPhaseGen && p.parent != nil:
		return requeue, rerender.SetPhaseGen(ctx, a.argo, a.opts.Namespace, p.plan.Parent, st.Generation)
	}
	return requeue, nil
}

// deleteGroup deletes the group's children not already being deleted, and says so once.
func (a *Agent) deleteGroup(ctx context.Context, p *pass, group []string, why string) error {
	var deleted []string
	for _, c := range group {
		if app := p.children[c]; app == nil || app.DeletionTimestamp != nil {
			continue
		}
		bg := metav1.DeletePropagationBackground
		if err := a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Delete(ctx, c, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete child %s with its parent: %w", c, err)
		}
		deleted = append(deleted, c)
	}
	if len(deleted) > 0 {
		a.events.Event(a.parentRef(p), corev1.EventTypeNormal, "ChildrenRemoving", why+": removing "+strings.Join(deleted, ", "))
		p.log.Info("children deleted with the parent", "children", deleted)
	}
	return nil
}

// cachedState is the rollout's state as the cache holds it (nil: none).
func (a *Agent) cachedState(name string) (*state.State, error) {
	cm, err := a.caches.states.Get(contract.StateConfigMap(name))
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state of %s: %w", name, err)
	}
	if len(cm.BinaryData[contract.StateKey]) == 0 {
		return nil, nil
	}
	st, err := state.FromConfigMap(cm)
	if err != nil {
		return nil, failure.InvalidInput(err, "restore the state ConfigMap from a backup, or delete it")
	}
	return st, nil
}

// setFinalizers writes a parent's finalizers, conditional on the resourceVersion read (a
// concurrent change is a conflict; the next pass reads it again).
func (a *Agent) setFinalizers(ctx context.Context, parent *v1alpha1.Application, finalizers []string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": finalizers, "resourceVersion": parent.ResourceVersion}})
	if err != nil {
		return fmt.Errorf("finalizers of %s: %w", parent.Name, err)
	}
	_, err = a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Patch(ctx, parent.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("finalizers of %s: %w", parent.Name, err)
	}
	return nil
}

// withFinalizer is finalizers with the agent's finalizer present or not (order kept).
func withFinalizer(finalizers []string, present bool) []string {
	out := slices.DeleteFunc(slices.Clone(finalizers), func(f string) bool { return f == contract.FinalizerChildren })
	if present {
		out = append(out, contract.FinalizerChildren)
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// specGone reports whether the parent's last render failed because the rollout's spec is
// gone from git (the renderer's contract.SpecRemovedMarker in a ComparisonError).
func specGone(parent *v1alpha1.Application) bool {
	return parent != nil && slices.ContainsFunc(parent.Status.Conditions, func(c v1alpha1.ApplicationCondition) bool {
		return c.Type == v1alpha1.ApplicationConditionComparisonError && strings.Contains(c.Message, contract.SpecRemovedMarker)
	})
}

// specBack reports whether the parent's last render succeeded: it is seen and carries no
// ComparisonError (a transient one is no evidence the spec is back).
func specBack(parent *v1alpha1.Application) bool {
	return parent != nil && !slices.ContainsFunc(parent.Status.Conditions, func(c v1alpha1.ApplicationCondition) bool {
		return c.Type == v1alpha1.ApplicationConditionComparisonError
	})
}
