package rollout

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// The agent's backoff between attempts at a sync that failed on a transient error: the
// first retry after about RetryBase, doubling to at most RetryMax, each ±20% (jitter, so
// the children of a cluster that came back do not all retry in the same second).
const (
	RetryBase = 5 * time.Second
	RetryMax  = 2 * time.Minute
)

// RetryBackoff is the wait after the attempt-th failed attempt of the admission marker
// names, jittered by a hash of both: pure, so every agent computes the same time.
func RetryBackoff(marker string, attempt int) time.Duration {
	d := RetryBase
	for i := 1; i < attempt && d < RetryMax; i++ {
		d *= 2
	}
	d = min(d, RetryMax)
	h := fnv.New64a()
	fmt.Fprintf(h, "%s#%d", marker, attempt)
	jitter := float64(h.Sum64()%4001)/10000 - 0.2 // -0.2 .. +0.2
	return d + time.Duration(float64(d)*jitter)
}

// transientFailure reports whether the finished operation o observes failed on a transient
// error that the agent retries — Argo CD does not retry it itself (the child's own
// syncPolicy.retry: Argo CD's last word is final), and its message says transient — and
// the rule that said so.
func transientFailure(o Observation) (string, bool) {
	if o.OperationPhase != "Failed" && o.OperationPhase != "Error" || o.ArgoCDRetries {
		return "", false
	}
	kind, rule := ClassifySyncFailure(o.OperationMessage)
	if kind == Permanent && rule == "forbidden" && o.attempt() == 1 && !quota.MatchString(o.OperationMessage) {
		// a managed cluster's API server that just started answers forbidden until its RBAC
		// caches have synced: the first refusal is tried once more, the second is a verdict
		return "forbidden, once: an API server just started refuses until its RBAC is read", true
	}
	return rule, kind == Transient
}

// quota is a forbidden answer that is no one's permission: a retry meets it again.
var quota = regexp.MustCompile(`(?i)exceeded quota`)

// attempt is the number of the observed operation among this admission's attempts.
func (o Observation) attempt() int {
	return max(o.OperationAttempt, 1)
}

// transientReason is a Waiting child's reason while its failed sync is retried.
func transientReason(o Observation, rule, want string, since time.Time) string {
	next := o.OperationFinishedAt.Add(RetryBackoff(Marker(want, since), o.attempt()))
	return fmt.Sprintf("sync %s on a transient error (%s), attempt %d; the agent retries it at %s until the phase's progressDeadline: %s",
		o.OperationPhase, rule, o.attempt(), next.UTC().Format(time.RFC3339), o.OperationMessage)
}

// Retry says when the agent syncs a child admitted to want at since again: its last sync,
// of this admission, failed on a transient error, nothing is pending, and Argo CD does not
// retry it itself. attempt is the number the new sync carries.
func Retry(o Observation, want string, since time.Time) (at time.Time, attempt int, ok bool) {
	if o.Revision != want || o.OperationPending || !o.SpecCompared || o.OperationFinishedAt.IsZero() {
		return time.Time{}, 0, false
	}
	if _, transient := transientFailure(o); !transient {
		return time.Time{}, 0, false
	}
	ours := o.OperationMarker != "" && o.OperationMarker == Marker(want, since)
	if !ours && o.OperationFinishedAt.Before(since) {
		return time.Time{}, 0, false // a failure from before this admission is not ours to retry
	}
	return o.OperationFinishedAt.Add(RetryBackoff(Marker(want, since), o.attempt())), o.attempt() + 1, true
}

// retryTransient is the engine's part in a child's transient failure, for a child Settle
// said is Waiting: before deadline it asks the agent to sync the child again once its
// backoff is over (ActSyncAgain), and to come back then otherwise; without a deadline
// (none) it retries for as long as it takes. The verdict stays Waiting.
func (ps *pass) retryTransient(child string, o Observation, want string, since time.Time, deadline *time.Time) {
	now := ps.now
	at, _, ok := Retry(o, want, since)
	switch {
	case !ok:
	case deadline != nil && !now.Before(*deadline):
	case now.Before(at):
		ps.requeue(at, "retry the sync of "+child)
	default:
		ps.add(Action{Kind: ActSyncAgain, Cluster: child, Revision: want, Since: since})
	}
}

// liveRetries drops the syncs asked for in a pass that then stopped the rollout or turned
// it back: only a member still waiting in a progressing rollout of that revision, or a
// returning child of a rollback, is synced again.
func liveRetries(r *state.Rollout, acts []Action) []Action {
	return slices.DeleteFunc(acts, func(a Action) bool {
		if a.Kind != ActSyncAgain {
			return false
		}
		if r == nil {
			return true
		}
		for _, ph := range r.Phases {
			switch {
			case r.Status == StatusProgressing && a.Revision == r.Revision && ph.Clusters[a.Cluster].Status == ClusterWaiting && slices.Contains(ph.Admitted, a.Cluster):
				return false
			case r.Status == StatusRollingBack && ph.RollbackAt != nil && a.Since.Equal(*ph.RollbackAt) && slices.Contains(ph.Returning, a.Cluster):
				return false
			}
		}
		return true
	})
}
