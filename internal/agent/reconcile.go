package agent

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"time"

	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/inputs"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Agent drives the rollouts of one namespace: Applications, cluster Secrets and cmp-phase's
// ConfigMaps all live there.
type Agent struct {
	Kube      kubernetes.Interface
	Argo      argoclient.Interface
	Namespace string
	Log       *slog.Logger
	renderer  *render.Renderer
	exprs     *targets.Cache
}

// New makes an agent.
func New(kube kubernetes.Interface, argo argoclient.Interface, ns string, log *slog.Logger) *Agent {
	return &Agent{Kube: kube, Argo: argo, Namespace: ns, Log: log, renderer: render.New(64), exprs: targets.NewCache(1024)}
}

// PublishInventory writes the inventory ConfigMap from the cluster Secrets when it changed.
func (a *Agent) PublishInventory(ctx context.Context, secrets []*corev1.Secret) (*inventory.Inventory, error) {
	inv := Inventory(secrets)
	b, err := inv.Encode()
	if err != nil {
		return nil, err
	}
	cms := a.Kube.CoreV1().ConfigMaps(a.Namespace)
	cur, err := cms.Get(ctx, inputs.InventoryConfigMap, metav1.GetOptions{})
	switch {
	case err == nil && bytes.Equal([]byte(cur.Data[inventory.Key]), b):
		return inv, nil
	case err == nil:
		cur.Data = map[string]string{inventory.Key: string(b)}
		_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
	default:
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: inputs.InventoryConfigMap, Namespace: a.Namespace},
			Data: map[string]string{inventory.Key: string(b)}}, metav1.CreateOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("publish inventory: %w", err)
	}
	a.Log.Info("inventory published", "clusters", len(inv.Clusters))
	return inv, nil
}

// Reconcile runs one engine step for the rollout of a plan ConfigMap: observe the children,
// decide (re-deciding on a write conflict), write the state, point the parent at it. It
// returns when to come back at the latest (zero: on the next event or resync).
func (a *Agent) Reconcile(ctx context.Context, planCM *corev1.ConfigMap, inv *inventory.Inventory, now time.Time) (time.Time, error) {
	plan, err := render.DecodePlan(planCM, a.exprs)
	if err != nil {
		return time.Time{}, err
	}
	children, err := a.observeChildren(ctx, plan.Rollout)
	if err != nil {
		return time.Time{}, err
	}
	sp := &spec.Spec{Name: plan.Rollout, Namespace: plan.Namespace}
	var acts []rollout.Action
	store := &state.Store{ConfigMaps: a.Kube.CoreV1(), Namespace: a.Namespace, Name: inputs.StateConfigMap(plan.Rollout)}
	next, wrote, err := store.Update(ctx, func(cur *state.State) (*state.State, error) {
		in := render.Input{Spec: sp, Inventory: inv, State: cur}
		subjects, err := a.renderer.Subjects(plan.Rollout, plan.Revision, plan.Body, inv)
		if err != nil {
			return nil, err
		}
		changed, err := a.renderer.Changed(in, plan.Revision, plan.Body, subjects)
		if err != nil {
			return nil, err
		}
		n, as, err := rollout.Step(rollout.Plan{Revision: plan.Revision, Body: plan.Body, Phases: plan.Phases}, cur,
			rollout.Observed{Subjects: subjects, Changed: changed, Children: children}, now)
		acts = as
		return n, err
	})
	if err != nil {
		return time.Time{}, err
	}
	var requeue time.Time
	rerender := false
	for _, act := range acts {
		switch act.Kind {
		case rollout.ActRerender:
			rerender = true
		case rollout.ActEvent:
			a.Log.Info("rollout event", "rollout", plan.Rollout, "message", act.Reason)
		case rollout.ActRequeue:
			if requeue.IsZero() || act.At.Before(requeue) {
				requeue = act.At
			}
		}
	}
	if wrote && rerender && plan.Parent != "" {
		if err := SetPhaseGen(ctx, a.Argo, a.Namespace, plan.Parent, next.Generation); err != nil {
			return requeue, err
		}
		a.Log.Info("state written", "rollout", plan.Rollout, "generation", next.Generation, "parent", plan.Parent)
	}
	return requeue, nil
}

// observeChildren reads the rollout's live child Applications.
func (a *Agent) observeChildren(ctx context.Context, rolloutName string) (map[string]rollout.Observation, error) {
	sel := labels.SelectorFromSet(labels.Set{render.LabelRollout: rolloutName}).String()
	list, err := a.Argo.ArgoprojV1alpha1().Applications(a.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("list children of %s: %w", rolloutName, err)
	}
	out := make(map[string]rollout.Observation, len(list.Items))
	for i := range list.Items {
		out[list.Items[i].Name] = Observe(&list.Items[i])
	}
	return out, nil
}
