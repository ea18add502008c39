package agent

import (
	"context"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// ledgerRecorded reports whether the written ledger has the outcome of run id: an entry of
// some phase of r under that idempotency key that is no longer Running. A result forgotten
// otherwise (a new revision, a reset state) leaves what its run left to its kind (a Job
// to ttlSecondsAfterFinished and the next run's BeforeHookCreation): removing it
// unrecorded could run the hook twice.
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

// cleanUp removes what runs the ledger recorded left behind (hooks.Cleanup: a job hook's
// Job, by UID); a failure is logged, the work left to its kind (a Job to its ttl or the
// next run's BeforeHookCreation).
func (a *Agent) cleanUp(ctx context.Context, rollout string, left []hooks.Cleanup) {
	for _, c := range left {
		what, attrs := c.Describe()
		attrs = append([]any{"rollout", rollout}, attrs...)
		if err := c.Clean(ctx, a.hooks); err != nil {
			a.log.Warn(what+" not deleted", append(attrs, "error", err)...)
			continue
		}
		a.log.Info(what+" deleted", attrs...)
	}
}
