package rollout

import (
	"fmt"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// rollBack returns admitted children to the revision they ran before, in reverse phase
// order: the latest phase's children leave Admitted together (the renderer then renders
// them at their previous revision), and the next earlier phase waits until they have
// settled there. When no phase holds admitted children the rollout is RolledBack.
func rollBack(st *state.State, _ Plan, o Observed, now time.Time, acts *[]Action) {
	r := st.Rollout
	for i := len(r.Phases) - 1; i >= 0; i-- {
		ph := &r.Phases[i]
		if len(ph.Returning) > 0 {
			if !returned(st, ph, o) {
				return
			}
			ph.Returning, ph.Status = nil, PhaseReturned
			emit(r, acts, now, EvPhaseRolledBack, "phase "+ph.Name+" rolled back")
			continue
		}
		if len(ph.Admitted) == 0 {
			continue
		}
		ph.Returning, ph.Admitted, ph.Status, ph.RollbackAt = ph.Admitted, nil, PhaseReturning, &now
		emit(r, acts, now, EvPhaseRollingBack, fmt.Sprintf("phase %s: returning %s", ph.Name, describe(ph.Returning)))
		return
	}
	r.Status = StatusRolledBack
	emit(r, acts, now, EvRolledBack, "rollout rolled back: "+r.Reason)
}

// returned reports whether every returning child has settled on its previous revision.
func returned(st *state.State, ph *state.PhaseState, o Observed) bool {
	all := true
	for _, c := range ph.Returning {
		want := st.Deployed
		if pin, ok := st.Pinned[c]; ok {
			want = pin
		}
		v, why := Waiting, "not observed yet"
		if obs, ok := o.Children[c]; ok {
			v, why = Settle(obs, want, *ph.RollbackAt)
		}
		ph.Clusters[c] = state.ClusterState{Status: state.ClusterReturning, Reason: why, AdmittedAt: ph.Clusters[c].AdmittedAt}
		if v != Done {
			all = false
		}
	}
	return all
}
