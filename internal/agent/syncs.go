package agent

import (
	"context"

	"github.com/cmp-phase/cmp-phase/internal/agent/childsync"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

// startSyncs starts the syncs the engine decided (Decision.Syncs, childsync.StartAll) and
// counts the syncs started.
func (a *Agent) startSyncs(ctx context.Context, p *pass) error {
	n, err := childsync.StartAll(ctx, a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace), p.log, p.decision.Syncs)
	a.metrics.Syncs.WithLabelValues(p.plan.Rollout).Add(float64(n))
	return err
}

// syncAgain carries out the engine's ActSyncAgain (childsync.RetryAll: each judged again
// on the live child; one refused is logged and asked again on the next pass) and counts
// the syncs started again.
func (a *Agent) syncAgain(ctx context.Context, p *pass, acts []rollout.Action) error {
	if n := childsync.RetryAll(ctx, a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace), a.now, p.log, acts); n > 0 {
		a.metrics.Retries.WithLabelValues(p.plan.Rollout).Add(float64(n))
		a.metrics.Syncs.WithLabelValues(p.plan.Rollout).Add(float64(n))
	}
	return nil
}
