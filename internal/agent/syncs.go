package agent

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// startSyncs starts the sync of every admitted, waiting child that has no automated sync
// of its own, once per admission.
func (a *Agent) startSyncs(ctx context.Context, p *pass, st *state.State) error {
	r := st.Rollout
	if !r.Active() || r.Status.IsTerminal() {
		return nil
	}
	for _, ph := range r.Phases {
		for _, c := range ph.Admitted {
			cs := ph.Clusters[c]
			if app := p.children[c]; cs.Status == state.ClusterWaiting && app != nil && NeedsSync(app, r.Revision, cs.AdmittedAt) {
				if err := a.sync(ctx, p.log, c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// NeedsSync reports whether the agent must start a child's sync: it carries the admitted
// revision, Argo CD compared that spec and found it OutOfSync, the child does not sync
// itself, no operation is pending, and none started since admission.
func NeedsSync(app *v1alpha1.Application, rev string, admittedAt time.Time) bool {
	if (app.Spec.SyncPolicy != nil && app.Spec.SyncPolicy.IsAutomatedSyncEnabled()) || app.Operation != nil || app.DeletionTimestamp != nil {
		return false
	}
	if app.Annotations[contract.AnnotationRevision] != rev || !compared(app) || app.Status.Sync.Status != v1alpha1.SyncStatusCodeOutOfSync {
		return false
	}
	op := app.Status.OperationState
	if op == nil {
		return true
	}
	if markerOf(op.Operation.Info) == rollout.Marker(rev, admittedAt) && syncedSpec(app, op.SyncResult) {
		return false // the agent started this admission's sync already
	}
	// Argo CD's timestamps are whole seconds: a sync started in the second of admission counts.
	return op.StartedAt.Time.Before(admittedAt.Truncate(time.Second))
}

// sync sets the child's operation, like argocd app sync: only when none is present, with
// the resourceVersion read.
func (a *Agent) sync(ctx context.Context, log *slog.Logger, child string) error {
	apps := a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace)
	app, err := apps.Get(ctx, child, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("start sync of %s: %w", child, err)
	}
	if app.Operation != nil {
		return nil
	}
	var opts v1alpha1.SyncOptions
	if app.Spec.SyncPolicy != nil {
		opts = app.Spec.SyncPolicy.SyncOptions
	}
	app.Operation = &v1alpha1.Operation{
		Sync:        &v1alpha1.SyncOperation{SyncOptions: opts},
		InitiatedBy: v1alpha1.OperationInitiator{Username: "cmp-phase-agent", Automated: true},
	}
	if _, err := apps.Update(ctx, app, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("start sync of %s: %w", child, err)
	}
	log.Info("sync started", "child", child)
	return nil
}
