package rollout

import (
	"fmt"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

func (v Verdict) String() string {
	return string(v.Status())
}

// Status is the cluster status a verdict gives.
func (v Verdict) Status() state.ClusterStatus {
	return [...]state.ClusterStatus{state.ClusterWaiting, state.ClusterDone, state.ClusterFailed, state.ClusterErrored}[v]
}

// Settle judges a child admitted to revision want at admittedAt. Nothing observed about the
// previous revision can pass: the live child must carry want, Argo CD must have compared that
// spec, any sync since admission must have succeeded, and the status must have been
// reconciled after both admission and that sync. A child whose new spec needs no sync
// (Synced on the new comparison, reconciled after admission) is done without an operation.
//
// A sync that failed on a transient error (ClassifySyncFailure) leaves the child waiting:
// the agent syncs it again (Retry) until the phase's progressDeadline, unless Argo CD
// retries it itself (ArgoCDRetries), whose failure is final.
//
// The agent's own sync for this admission (its Marker) counts as since admission whatever
// the clock says: Argo CD's timestamps are whole seconds, and a sync the agent starts at
// admission can finish within the second it was admitted in.
func Settle(o Observation, want string, admittedAt time.Time) (Verdict, string) {
	switch {
	case o.Revision != want:
		return Waiting, fmt.Sprintf("the live child runs revision %q, not %q yet (the parent has not applied it)", o.Revision, want)
	case o.OperationPending:
		return Waiting, "sync requested"
	case !o.SpecCompared:
		return Waiting, "Argo CD has not compared the new spec yet"
	}
	synced, v, why, judged := syncVerdict(o, want, admittedAt)
	if judged {
		return v, why
	}
	return statusVerdict(o, synced)
}

// syncVerdict judges the child's last operation when it ended since the admission (or is
// the agent's own for it), or still runs: judged is false when the verdict is the status's
// (statusVerdict), which must have been reconciled after synced.
func syncVerdict(o Observation, want string, admittedAt time.Time) (synced time.Time, v Verdict, why string, judged bool) {
	synced = admittedAt
	ours := o.OperationMarker != "" && o.OperationMarker == Marker(want, admittedAt)
	if !o.OperationFinishedAt.IsZero() && (ours || !o.OperationFinishedAt.Before(admittedAt)) {
		switch o.OperationPhase {
		case "Succeeded":
			return later(o.OperationFinishedAt, admittedAt.Truncate(time.Second)), Waiting, "", false
		case "Failed", "Error":
			if rule, transient := transientFailure(o); transient {
				return synced, Waiting, transientReason(o, rule, want, admittedAt), true
			}
			if o.OperationPhase == "Failed" {
				return synced, Failed, "sync Failed: " + o.OperationMessage, true
			}
			return synced, Errored, "sync Error (Argo CD could not run it): " + o.OperationMessage, true
		default:
			return synced, Waiting, "sync " + o.OperationPhase, true
		}
	} else if o.OperationPhase == "Running" {
		return synced, Waiting, "sync running", true
	}
	return synced, Waiting, "", false
}

// statusVerdict judges a child whose sync is not the verdict: by its sync status, once
// reconciled since synced, and its health.
func statusVerdict(o Observation, synced time.Time) (Verdict, string) {
	switch {
	case o.SyncStatus != "Synced":
		return Waiting, "sync status " + o.SyncStatus
	case o.ReconciledAt.Before(synced.Truncate(time.Second)):
		// Argo CD's timestamps are whole seconds: a reconcile in the same second as the sync
		// counts. It cannot be a stale one: the status compares the new spec and says Synced.
		return Waiting, "status not reconciled since the sync (it may describe the previous revision)"
	case o.Health == "Healthy":
		return Done, "synced and Healthy"
	case o.Health == "Degraded":
		return Failed, "Degraded after syncing the new revision"
	default:
		return Waiting, "health " + o.Health
	}
}

// Marker names one admission of a child to a revision (or one return, in a rollback): the
// agent writes it into the sync it starts (the operation's info), so that sync is known as
// the one for this admission, across restarts and leaders.
func Marker(rev string, since time.Time) string {
	return rev + "@" + since.UTC().Format(time.RFC3339Nano)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
