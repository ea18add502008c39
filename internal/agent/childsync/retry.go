package childsync

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	argov1alpha1 "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned/typed/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/agent/childop"
	"github.com/cmp-phase/cmp-phase/internal/agent/observe"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

// RetryAll carries out the engine's ActSyncAgain actions among acts (Retry) and returns
// how many syncs it started again. One that fails is that child's: it is logged, the
// others go on, and the next pass asks again.
func RetryAll(ctx context.Context, apps argov1alpha1.ApplicationInterface, now func() time.Time, log *slog.Logger, acts []rollout.Action) int {
	n := 0
	for _, act := range acts {
		if act.Kind != rollout.ActSyncAgain {
			continue
		}
		attempt, err := Retry(ctx, apps, now, act)
		switch {
		case err != nil:
			log.Warn("sync not retried", "child", act.Cluster, "error", err)
		case attempt > 0:
			n++
			log.Info("sync retried", "child", act.Cluster, "attempt", attempt, "revision", act.Revision)
		}
	}
	return n
}

// Retry starts again the sync of the child of act (ActSyncAgain: its last attempt failed
// on a transient error), judged again on the live child (not a cache) at now(): a retry
// already started, a backoff not over, a child deleting or changed meanwhile is left
// alone (attempt 0). It returns the attempt it started.
func Retry(ctx context.Context, apps argov1alpha1.ApplicationInterface, now func() time.Time, act rollout.Action) (int, error) {
	app, err := apps.Get(ctx, act.Cluster, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("retry the sync of %s: %w", act.Cluster, err)
	}
	at, attempt, ok := rollout.Retry(observe.Child(app), act.Revision, act.Since)
	if !ok || now().Before(at) || app.DeletionTimestamp != nil || app.Operation != nil {
		return 0, nil
	}
	app.Operation = childop.Retry(&app.Spec, rollout.Marker(act.Revision, act.Since), attempt)
	if _, err := apps.Update(ctx, app, metav1.UpdateOptions{}); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return 0, nil // changed meanwhile: the next pass judges it as it is now
		}
		return 0, fmt.Errorf("retry the sync of %s: %w", act.Cluster, err)
	}
	return attempt, nil
}
