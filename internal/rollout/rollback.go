package rollout

import (
	"fmt"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// rollBack returns admitted children to the revision they ran before, in reverse phase
// order: the latest phase's children leave Admitted together (the renderer then renders
// them at their previous revision), and the next earlier phase waits until they have
// settled there. When no phase holds admitted children the rollout is RolledBack. A
// returning phase has its progressDeadline too, from the moment it started returning:
// children not settled by then are Errored and the rollout stops (returnDeadline).
func (ps *pass) rollBack() {
	p, now := ps.p, ps.now
	r := ps.st.Rollout
	for i := len(r.Phases) - 1; i >= 0; i-- {
		ph := &r.Phases[i]
		if ph.Track == sharedView {
			break // a track rolls back its own phases only (tracks.go)
		}
		if len(ph.Returning) > 0 {
			pending := ps.returned(ph, returnDeadlineAt(ph, p, i))
			if len(pending) == 0 {
				ph.Returning, ph.Status = nil, PhaseReturned
				ps.emit(r, EvPhaseRolledBack, "phase "+ph.Name+" rolled back")
				continue
			}
			ps.returnDeadline(ph, i, pending)
			return
		}
		if len(ph.Admitted) == 0 {
			continue
		}
		ph.Returning, ph.Admitted, ph.Status, ph.RollbackAt = ph.Admitted, nil, PhaseReturning, &now
		ps.emit(r, EvPhaseRollingBack, fmt.Sprintf("phase %s: returning %s", ph.Name, describe(ph.Returning)))
		return
	}
	r.Status = StatusRolledBack
	ps.emit(r, EvRolledBack, "rollout rolled back: "+r.Reason)
}

// returnDeadlineAt is the return deadline of returning phase ph (index i of the plan): its
// progressDeadline (or the default) from when it started returning; nil when unknown or
// none.
func returnDeadlineAt(ph *state.PhaseState, p plan.Plan, i int) *time.Time {
	if i >= len(p.Phases) || ph.RollbackAt == nil || progressDeadline(p.Phases[i]) < 0 {
		return nil
	}
	d := ph.RollbackAt.Add(progressDeadline(p.Phases[i]))
	return &d
}

// returnDeadline applies the progressDeadline of returning phase ph (index i of the plan)
// to its children still pending: before the deadline it asks to come back then; at or
// after it those children are Errored, the phase Errored and the rollout Stopped, with a
// reason naming them and the deadline. A phase without progressDeadline has the default
// (DefaultProgressDeadline).
func (ps *pass) returnDeadline(ph *state.PhaseState, i int, pending []string) {
	r, p, now := ps.st.Rollout, ps.p, ps.now
	at := returnDeadlineAt(ph, p, i)
	if at == nil {
		return
	}
	limit, deadline := progressDeadline(p.Phases[i]), *at
	if now.Before(deadline) {
		ps.requeue(deadline, "progressDeadline of returning phase "+ph.Name)
		return
	}
	for _, c := range pending {
		cs := ph.Clusters[c]
		cs.Status, cs.Reason = ClusterErrored, "did not return by the phase's progressDeadline: "+cs.Reason
		ph.Clusters[c] = cs
	}
	markFailed(ph, PhaseErrored, now)
	r.Status = StatusStopped
	r.Reason = fmt.Sprintf("rollback stopped: phase %s: %s did not settle on the previous revision within progressDeadline %s (returning since %s); they stay where they are (fix: repair them, then write rollback again, or abort)",
		ph.Name, describe(pending), limit, ph.RollbackAt.UTC().Format(time.RFC3339))
	ps.emit(r, EvRolloutStopped, "rollout stopped: "+r.Reason)
}

// returned lists the returning children of ph that have not settled on their previous
// revision yet (none: the phase has returned), recording where each one stands.
// A returning child whose sync failed on a transient error is synced again until the
// phase's return deadline (until; nil: unknown).
func (ps *pass) returned(ph *state.PhaseState, until *time.Time) []string {
	st := ps.st
	var pending []string
	for _, c := range ph.Returning {
		want := st.Deployed
		if pin, ok := st.Pinned[c]; ok {
			want = pin
		}
		v, why := Waiting, "not observed yet"
		if obs, ok := ps.o.Children[c]; ok {
			if v, why = Settle(obs, want, *ph.RollbackAt); v == Waiting {
				ps.retryTransient(c, obs, want, *ph.RollbackAt, until)
			}
		}
		ph.Clusters[c] = state.ClusterState{Status: state.ClusterReturning, Reason: why, AdmittedAt: ph.Clusters[c].AdmittedAt}
		if v != Done {
			pending = append(pending, c)
		}
	}
	return pending
}
