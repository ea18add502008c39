package agent

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/cmp-phase/cmp-phase/internal/clustersecrets"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
)

// publish writes the inventory ConfigMap from the clusters read (the cached cluster Secrets,
// or argocd-server's list) when it differs, and when the inventory changed wakes every
// rollout (a cluster's labels decide its phases). A cluster whose Secret is gone stays in
// it, marked, for the removal grace (kept in the published ConfigMap, so across restarts):
// it returns when to publish again.
func (a *Agent) publish(ctx context.Context) (time.Time, error) {
	cur, err := a.inventoryConfigMap(ctx)
	if err != nil {
		return time.Time{}, err
	}
	before := a.published(cur)
	src := a.clusters()
	fresh, left, err := src.Read(ctx, before)
	if err != nil {
		return time.Time{}, err
	}
	inv, gone, next := inventory.Hold(before, fresh, a.now(), a.opts.RemovalGrace)
	if poll := src.Poll(); poll > 0 {
		next = earliest(next, a.now().Add(poll))
	}
	b, err := inv.Encode()
	if err != nil {
		return time.Time{}, err
	}
	if err := a.writeInventory(ctx, cur, b); err != nil {
		return time.Time{}, err
	}
	a.warnAbsent(gone, left)
	a.mu.Lock()
	changed := a.inv == nil || !bytes.Equal(a.invBytes, b)
	a.inv, a.invBytes = inv, b
	a.mu.Unlock()
	if !changed {
		return next, nil // a Secret changed in what the inventory does not carry (credentials)
	}
	a.log.Info("inventory published", "clusters", len(inv.Clusters))
	for _, o := range left { // withheld annotations: said when the inventory changes
		if o.Reason == "" {
			a.log.Warn("cluster annotations withheld", "message", o.Msg)
		}
	}
	if err := a.everyRollout(); err != nil {
		return time.Time{}, err
	}
	return next, nil
}

// inventoryConfigMap reads the published inventory ConfigMap: nil when there is none.
func (a *Agent) inventoryConfigMap(ctx context.Context) (*corev1.ConfigMap, error) {
	cur, err := a.kube.CoreV1().ConfigMaps(a.opts.Namespace).Get(ctx, contract.InventoryConfigMap, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("publish inventory: %w", err)
	}
	return cur, nil
}

// writeInventory writes the encoded inventory b into the inventory ConfigMap, cur as read
// (nil: there is none, it is created), when its data differs.
func (a *Agent) writeInventory(ctx context.Context, cur *corev1.ConfigMap, b []byte) error {
	data, binary, err := inputs.InventoryData(b)
	if err != nil {
		return err
	}
	cms := a.kube.CoreV1().ConfigMaps(a.opts.Namespace)
	switch {
	case cur != nil && maps.Equal(cur.Data, data) && maps.EqualFunc(cur.BinaryData, binary, bytes.Equal):
	case cur != nil:
		cur.Data, cur.BinaryData = data, binary
		_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
	default:
		_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.InventoryConfigMap, Namespace: a.opts.Namespace},
			Data: data, BinaryData: binary}, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("publish inventory: %w", err)
	}
	return nil
}

// warnAbsent warns on every parent of each cluster whose Secret is gone (gone, held for the
// removal grace) and of each cluster left out with a reason: said at every publish.
func (a *Agent) warnAbsent(gone []string, left []clustersecrets.Omission) {
	for _, c := range gone {
		a.warnEveryParent("ClusterAbsent", fmt.Sprintf("the Secret of cluster %s is gone: its children stay as they are and are removed only if it is still gone at %s (--removal-grace %s)",
			c, a.now().Add(a.opts.RemovalGrace).UTC().Format(time.RFC3339), a.opts.RemovalGrace))
	}
	for _, o := range left { // a cluster left out leaves the inventory as it was: said every time
		if o.Reason != "" {
			a.warnEveryParent(o.Reason, o.Msg)
		}
	}
}

// published is the inventory published before: the agent's own, or at start the one in the
// ConfigMap (nil when there is none or it cannot be read: nothing is held then).
func (a *Agent) published(cm *corev1.ConfigMap) *inventory.Inventory {
	if inv := a.inventory(); inv != nil {
		return inv
	}
	if cm == nil || cm.Data == nil {
		return nil
	}
	inv, err := inputs.InventoryFromConfigMap(cm)
	if err != nil {
		a.log.Warn("published inventory unreadable; nothing held", "error", err)
		return nil
	}
	return inv
}

// warnEveryParent publishes a Warning Event on the parent of every rollout.
func (a *Agent) warnEveryParent(reason, msg string) {
	a.log.Warn("fleet warning", "event", reason, "message", msg)
	plans, err := a.caches.plans.List(labels.Everything())
	if err != nil {
		return
	}
	for _, p := range plans {
		if parent := p.Annotations[contract.AnnotationParent]; parent != "" {
			a.events.Event(a.applicationRef(parent), corev1.EventTypeWarning, reason, msg)
		}
	}
}

// inventory is the last published inventory, nil before the first.
func (a *Agent) inventory() *inventory.Inventory {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inv
}
