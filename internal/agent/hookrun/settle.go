package hookrun

import (
	"context"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Settle forgets the rollout's kept results that the written ledgers of st (not nil: its
// phases', and its post-delete ledger) no longer wait for, and removes what those runs
// left for removal (hooks.Cleanup: a Job its hookDeletePolicy deletes) when the ledger
// has their outcome.
func (l *Runs) Settle(ctx context.Context, name string, st *state.State) {
	r := st.Rollout
	after := afterDeleteIDs(name, st)
	l.mu.Lock()
	var left []hooks.Cleanup
	for id := range l.results[name] {
		if pendingResult(r, name, id) || after[id] == state.HookRunning {
			continue
		}
		delete(l.results[name], id)
		if c, ok := l.cleanups[id]; ok {
			delete(l.cleanups, id)
			if ledgerRecorded(r, name, id) || after[id] != "" {
				left = append(left, c)
			}
		}
	}
	l.mu.Unlock()
	l.clean(ctx, name, left)
}

// pendingResult reports whether a kept result is still waiting for the ledger: its run is
// recorded Running in the current phase.
func pendingResult(r *state.Rollout, name, id string) bool {
	if r == nil {
		return false
	}
	for _, i := range r.Current() { // the phase, or each track's
		for key, run := range r.Phases[i].Hooks {
			if run.Status == state.HookRunning && Key(name, r, i, key) == id {
				return true
			}
		}
	}
	return false
}

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
			if run.Status != state.HookRunning && Key(name, r, i, key) == id {
				return true
			}
		}
	}
	return false
}

// clean removes what runs the ledger recorded left behind (hooks.Cleanup: a job hook's
// Job, by UID); a failure is logged, the work left to its kind (a Job to its ttl or the
// next run's BeforeHookCreation).
func (l *Runs) clean(ctx context.Context, rollout string, left []hooks.Cleanup) {
	for _, c := range left {
		what, attrs := c.Describe()
		attrs = append([]any{"rollout", rollout}, attrs...)
		if err := c.Clean(ctx, l.runner); err != nil {
			l.opts.Log.Warn(what+" not deleted", append(attrs, "error", err)...)
			continue
		}
		l.opts.Log.Info(what+" deleted", attrs...)
	}
}
