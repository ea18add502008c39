package agent

import (
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/cmp-phase/cmp-phase/internal/inputs"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
)

// publish writes the inventory ConfigMap from the cached cluster Secrets when it differs,
// and when the inventory changed wakes every rollout (a cluster's labels decide its phases).
func (a *Agent) publish(ctx context.Context) error {
	secrets, err := a.caches.secrets.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list cluster secrets: %w", err)
	}
	inv := Inventory(secrets)
	b, err := inv.Encode()
	if err != nil {
		return err
	}
	cms := a.kube.CoreV1().ConfigMaps(a.opts.Namespace)
	cur, err := cms.Get(ctx, inputs.InventoryConfigMap, metav1.GetOptions{})
	switch {
	case err == nil && bytes.Equal([]byte(cur.Data[inventory.Key]), b):
	case err == nil:
		cur.Data = map[string]string{inventory.Key: string(b)}
		_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
	case apierrors.IsNotFound(err):
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: inputs.InventoryConfigMap, Namespace: a.opts.Namespace},
			Data: map[string]string{inventory.Key: string(b)}}, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("publish inventory: %w", err)
	}
	a.mu.Lock()
	changed := a.inv == nil || !bytes.Equal(a.invBytes, b)
	a.inv, a.invBytes = inv, b
	a.mu.Unlock()
	if !changed {
		return nil // a Secret changed in what the inventory does not carry (credentials)
	}
	a.log.Info("inventory published", "clusters", len(inv.Clusters))
	plans, err := a.caches.plans.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list plans: %w", err)
	}
	for _, p := range plans {
		if r := p.Labels[render.LabelRollout]; r != "" {
			a.queue.Add(r)
		}
	}
	return nil
}

// inventory is the last published inventory, nil before the first.
func (a *Agent) inventory() *inventory.Inventory {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inv
}
