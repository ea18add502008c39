package agent

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/childop"
	"github.com/cmp-phase/cmp-phase/internal/observe"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

// syncAgain carries out the engine's ActSyncAgain: the sync of a child whose last attempt
// failed on a transient error. Each is judged again on the live child (not the cache), so
// a retry already started, or a child changed meanwhile, is left alone; one that fails is
// logged and the next pass asks again.
func (a *Agent) syncAgain(ctx context.Context, p *pass, acts []rollout.Action) error {
	for _, act := range acts {
		if act.Kind != rollout.ActSyncAgain {
			continue
		}
		if err := a.retrySync(ctx, p, act); err != nil {
			// one child refused is that child's: the others and the rest of the pass go on
			p.log.Warn("sync not retried", "child", act.Cluster, "error", err)
		}
	}
	return nil
}

func (a *Agent) retrySync(ctx context.Context, p *pass, act rollout.Action) error {
	apps := a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace)
	app, err := apps.Get(ctx, act.Cluster, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("retry the sync of %s: %w", act.Cluster, err)
	}
	at, attempt, ok := rollout.Retry(observe.Child(app), act.Revision, act.Since)
	if !ok || a.now().Before(at) || app.DeletionTimestamp != nil || app.Operation != nil {
		return nil
	}
	app.Operation = childop.Retry(&app.Spec, rollout.Marker(act.Revision, act.Since), attempt)
	if _, err := apps.Update(ctx, app, metav1.UpdateOptions{}); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return nil // changed meanwhile: the next pass judges it as it is now
		}
		return fmt.Errorf("retry the sync of %s: %w", act.Cluster, err)
	}
	a.metrics.Retries.WithLabelValues(p.plan.Rollout).Inc()
	p.log.Info("sync retried", "child", act.Cluster, "attempt", attempt, "revision", act.Revision)
	return nil
}
