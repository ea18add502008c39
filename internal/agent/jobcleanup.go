package agent

import (
	"context"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// ledgerRecorded reports whether the written ledger has the outcome of run id: an entry of
// some phase of r under that idempotency key that is no longer Running. A result forgotten
// otherwise (a new revision, a reset state) leaves its Job to ttlSecondsAfterFinished and
// the next run's BeforeHookCreation: deleting it unrecorded could run the hook twice.
func ledgerRecorded(r *state.Rollout, name, id string) bool {
	if r == nil {
		return false
	}
	for i, ph := range r.Phases {
		for key, run := range ph.Hooks {
			if run.Status != state.HookRunning && idempotencyKey(name, r, i, key) == id {
				return true
			}
		}
	}
	return false
}

// deleteJobs deletes the Jobs of runs the ledger recorded (each that Job, by UID); a
// failure is logged, the Job left to its ttl or the next run's BeforeHookCreation.
func (a *Agent) deleteJobs(ctx context.Context, rollout string, refs []hooks.JobRef) {
	for _, ref := range refs {
		if err := a.hooks.DeleteJob(ctx, ref); err != nil {
			a.log.Warn("hook job not deleted", "rollout", rollout, "namespace", ref.Namespace, "job", ref.Name, "error", err)
			continue
		}
		a.log.Info("hook job deleted", "rollout", rollout, "namespace", ref.Namespace, "job", ref.Name)
	}
}
