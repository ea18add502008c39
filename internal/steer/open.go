package steer

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/statestore"
)

// Open is rollout name of namespace ns to steer, by who and why: it reads the rollout's plan
// once for the phases an edit may name, and edits through the state ConfigMap's store.
func Open(ctx context.Context, cms corev1client.ConfigMapsGetter, ns, name, by, reason string) (Rollout, error) {
	cm, err := cms.ConfigMaps(ns).Get(ctx, contract.PlanConfigMap(name), metav1.GetOptions{})
	if err != nil {
		return Rollout{}, fmt.Errorf("rollout %s: no plan in %s (is the parent synced?): %w", name, ns, err)
	}
	p, err := plan.Decode(plan.Manifest{Namespace: cm.Namespace, Name: cm.Name, Labels: cm.Labels, Annotations: cm.Annotations, Data: cm.Data}, nil)
	if err != nil {
		return Rollout{}, err
	}
	store := &statestore.Store{ConfigMaps: cms, Namespace: ns, Name: contract.StateConfigMap(name)}
	return Rollout{Name: name, Store: store, Phases: p.PhaseNames(), By: by, Reason: reason}, nil
}
