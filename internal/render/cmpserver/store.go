package cmpserver

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// InformerStore reads the sidecar's ConfigMaps of one namespace through informers that
// cache only them, trimmed to what a render reads, and keeps the decoded state of each
// rollout and the decoded inventory while their ConfigMaps do not change (decoded.go).
type InformerStore struct {
	ns        string
	states    listers.ConfigMapNamespaceLister // state ConfigMaps (contract.StateSelector)
	inventory listers.ConfigMapNamespaceLister // the inventory ConfigMap alone
	plans     listers.ConfigMapNamespaceLister // plan ConfigMaps (contract.PlanSelector), metadata only
	decoded   *decoded
}

// NewInformerStore starts the informers and waits for their first sync.
func NewInformerStore(ctx context.Context, client kubernetes.Interface, ns string) (*InformerStore, error) {
	watch := func(tweak func(*metav1.ListOptions), trim cache.TransformFunc) (informers.SharedInformerFactory, cache.SharedIndexInformer, listers.ConfigMapNamespaceLister) {
		f := informers.NewSharedInformerFactoryWithOptions(client, 10*time.Minute,
			informers.WithNamespace(ns), informers.WithTweakListOptions(tweak), informers.WithTransform(trim))
		inf := f.Core().V1().ConfigMaps()
		return f, inf.Informer(), inf.Lister().ConfigMaps(ns)
	}
	sf, si, states := watch(func(o *metav1.ListOptions) { o.LabelSelector = contract.StateSelector }, keepKeys(contract.StateKey, contract.GenerationKey))
	vf, vi, inv := watch(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + contract.InventoryConfigMap },
		keepKeys(contract.InventoryKey, contract.InventoryGzipKey))
	pf, pi, plans := watch(func(o *metav1.ListOptions) { o.LabelSelector = contract.PlanSelector }, keepKeys())
	for _, f := range []informers.SharedInformerFactory{sf, vf, pf} {
		f.Start(ctx.Done())
	}
	syncCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), si.HasSynced, vi.HasSynced, pi.HasSynced) {
		return nil, fmt.Errorf("configmap informers for namespace %s did not sync (check the sidecar may list and watch ConfigMaps there)", ns)
	}
	return newStore(ns, states, inv, plans), nil
}

func newStore(ns string, states, inv, plans listers.ConfigMapNamespaceLister) *InformerStore {
	return &InformerStore{ns: ns, states: states, inventory: inv, plans: plans, decoded: newDecoded(maxRollouts)}
}

// keepKeys trims a ConfigMap before the informer caches it: no managedFields, and of its
// data only the named keys (of Data and BinaryData); no keys: metadata only.
func keepKeys(keys ...string) cache.TransformFunc {
	return func(obj any) (any, error) {
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok {
			return obj, nil
		}
		cm.ManagedFields = nil
		cm.Data, cm.BinaryData = only(cm.Data, keys), only(cm.BinaryData, keys)
		return cm, nil
	}
}

// only is m restricted to keys, nil when none is there.
func only[V any](m map[string]V, keys []string) map[string]V {
	var out map[string]V
	for _, k := range keys {
		if v, ok := m[k]; ok {
			if out == nil {
				out = make(map[string]V, len(keys))
			}
			out[k] = v
		}
	}
	return out
}

// State returns the decoded state, nil when the ConfigMap does not exist.
func (s *InformerStore) State(rollout string) (*state.State, error) {
	cm, err := s.states.Get(contract.StateConfigMap(rollout))
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state configmap: %w", err)
	}
	return s.decoded.state(rollout, cm, state.FromConfigMap)
}

// Inventory returns the decoded inventory.
func (s *InformerStore) Inventory() (*inventory.Inventory, error) {
	cm, err := s.inventory.Get(contract.InventoryConfigMap)
	if err != nil {
		return nil, fmt.Errorf("read inventory configmap %s/%s: %w (fix: start the agent, which publishes it)", s.ns, contract.InventoryConfigMap, err)
	}
	return s.decoded.inventory(cm, inputs.InventoryFromConfigMap)
}

// RolloutOf finds the rollout whose plan ConfigMap the parent rendered.
func (s *InformerStore) RolloutOf(parent string) (string, bool) {
	plans, err := s.plans.List(labels.Everything())
	if err != nil {
		return "", false
	}
	for _, cm := range plans {
		if cm.Annotations[contract.AnnotationParent] == parent && cm.Labels[contract.LabelRollout] != "" {
			return cm.Labels[contract.LabelRollout], true
		}
	}
	return "", false
}
