package childsync

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argov1alpha1 "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned/typed/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

// StartAll starts the sync of every child the engine named (rollout.Decision.Syncs), in
// order, each only when no operation is present (Start). started is how many syncs it
// started (those it found started already are not counted).
func StartAll(ctx context.Context, apps argov1alpha1.ApplicationInterface, log *slog.Logger, syncs []rollout.Sync) (started int, err error) {
	for _, s := range syncs {
		ok, err := Start(ctx, apps, log, s.Child)
		if err != nil {
			return started, err
		}
		if ok {
			started++
		}
	}
	return started, nil
}

// Start sets the child's operation, like argocd app sync: only when none is present, with
// the resourceVersion read. started says it set one (not: one was there, or the child
// changed meanwhile and the next pass judges it again).
func Start(ctx context.Context, apps argov1alpha1.ApplicationInterface, log *slog.Logger, child string) (started bool, err error) {
	app, err := apps.Get(ctx, child, metav1.GetOptions{})
	if err != nil {
		return false, fmt.Errorf("start sync of %s: %w", child, err)
	}
	if app.Operation != nil {
		return false, nil
	}
	var opts v1alpha1.SyncOptions
	if app.Spec.SyncPolicy != nil {
		opts = app.Spec.SyncPolicy.SyncOptions
	}
	app.Operation = &v1alpha1.Operation{
		Sync:        &v1alpha1.SyncOperation{SyncOptions: opts},
		InitiatedBy: v1alpha1.OperationInitiator{Username: "cmp-phase-agent", Automated: true},
	}
	switch _, err := apps.Update(ctx, app, metav1.UpdateOptions{}); {
	case apierrors.IsConflict(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("start sync of %s: %w", child, err)
	}
	log.Info("sync started", "child", child)
	return true, nil
}
