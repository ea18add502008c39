package cmpserver

import (
	"context"
	"fmt"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inputs"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// InformerStore reads state and inventory ConfigMaps of one namespace through an informer
// and keeps decoded values by resourceVersion.
type InformerStore struct {
	ns     string
	lister listers.ConfigMapLister
	states *lru.Cache[string, *state.State]
	invs   *lru.Cache[string, *inventory.Inventory]
}

// NewInformerStore starts the informer and waits for its first sync.
func NewInformerStore(ctx context.Context, client kubernetes.Interface, ns string) (*InformerStore, error) {
	f := informers.NewSharedInformerFactoryWithOptions(client, 10*time.Minute,
		informers.WithNamespace(ns), informers.WithTransform(stripManagedFields))
	inf := f.Core().V1().ConfigMaps()
	lister := inf.Lister()
	f.Start(ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.Informer().HasSynced) {
		return nil, fmt.Errorf("configmap informer for namespace %s did not sync (check the sidecar may list and watch ConfigMaps there)", ns)
	}
	states, _ := lru.New[string, *state.State](64)
	invs, _ := lru.New[string, *inventory.Inventory](4)
	return &InformerStore{ns: ns, lister: lister, states: states, invs: invs}, nil
}

func stripManagedFields(obj any) (any, error) {
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		cm.ManagedFields = nil
	}
	return obj, nil
}

// State returns the decoded state, nil when the ConfigMap does not exist.
func (s *InformerStore) State(rollout string) (*state.State, error) {
	cm, err := s.lister.ConfigMaps(s.ns).Get(contract.StateConfigMap(rollout))
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state configmap: %w", err)
	}
	key := cm.Name + "@" + cm.ResourceVersion
	if st, ok := s.states.Get(key); ok {
		return st, nil
	}
	st, err := state.FromConfigMap(cm)
	if err != nil {
		return nil, err
	}
	s.states.Add(key, st)
	return st, nil
}

// Inventory returns the decoded inventory.
func (s *InformerStore) Inventory() (*inventory.Inventory, error) {
	cm, err := s.lister.ConfigMaps(s.ns).Get(contract.InventoryConfigMap)
	if err != nil {
		return nil, fmt.Errorf("read inventory configmap %s/%s: %w (fix: start the agent, which publishes it)", s.ns, contract.InventoryConfigMap, err)
	}
	key := cm.ResourceVersion
	if inv, ok := s.invs.Get(key); ok {
		return inv, nil
	}
	inv, err := inputs.InventoryFromConfigMap(cm)
	if err != nil {
		return nil, err
	}
	s.invs.Add(key, inv)
	return inv, nil
}

// RolloutOf finds the rollout whose plan ConfigMap the parent rendered.
func (s *InformerStore) RolloutOf(parent string) (string, bool) {
	sel, err := labels.Parse(contract.PlanSelector)
	if err != nil {
		return "", false
	}
	plans, err := s.lister.ConfigMaps(s.ns).List(sel)
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
