package rollout

import (
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// syncReason is why the agent starts a child's sync (Sync.Reason).
const syncReason = "admitted and waiting, OutOfSync on the admitted spec, and it has no automated sync of its own"

// syncs are the children whose sync the agent starts once the parent's render of st has
// arrived (Decision.Syncs): every admitted, waiting child of st's active rollout whose live
// Application does not sync itself (NeedsSync), once per admission; children are the live
// ones. None once the rollout ended.
func syncs(st *state.State, children map[string]Observation) []Sync {
	r := st.Rollout
	if !r.Active() || r.Status.IsTerminal() {
		return nil
	}
	var out []Sync
	for _, ph := range r.Phases {
		for _, c := range ph.Admitted {
			cs := ph.Clusters[c]
			if o, live := children[c]; live && cs.Status == ClusterWaiting && NeedsSync(o, r.Revision, cs.AdmittedAt) {
				out = append(out, Sync{Child: c, Reason: syncReason})
			}
		}
	}
	return out
}

// NeedsSync reports whether the agent must start a child's sync: it carries the admitted
// revision rev (admitted at admittedAt), its status compares the spec it has now and is
// OutOfSync, it has no automated sync, no operation and is not being deleted, and no sync
// started since its admission (the agent's own of this admission included).
func NeedsSync(o Observation, rev string, admittedAt time.Time) bool {
	if o.AutoSync || o.OperationPending || o.Deleting {
		return false
	}
	if o.Revision != rev || !o.SpecCompared || o.SyncStatus != "OutOfSync" {
		return false
	}
	if o.OperationMarker == Marker(rev, admittedAt) {
		return false // the agent started this admission's sync already
	}
	// Argo CD's timestamps are whole seconds: a sync started in the second of admission
	// counts; a child never synced has a zero start, before every admission.
	return o.OperationStartedAt.Before(admittedAt.Truncate(time.Second))
}
