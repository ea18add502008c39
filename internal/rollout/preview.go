package rollout

import (
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// PreviewNext returns the state as it will be once the rollout admits its next batch — the
// current phase's members it has yet to admit, or, when it has admitted all it will, the
// next phase's first batch (a manual gate previews what approving it admits) — for a
// preview render. st itself is never changed; with nothing to admit it is returned as is.
func PreviewNext(st *state.State, phases []spec.Phase) *state.State {
	if st == nil || !st.Rollout.Active() || st.Rollout.Status != StatusProgressing || len(phases) != len(st.Rollout.Phases) {
		return st
	}
	out := st.Clone()
	r := out.Rollout
	for i := r.Phase; i < len(r.Phases); i++ {
		ph := &r.Phases[i]
		b := batchOf(r, ph, phases[i])
		b.Approved = true // a manual gate previews what approving it admits
		// InFlight stays 0: a step previews its next batch as if the one in flight had settled
		if next := nextAdmission(b).Next; len(next) > 0 {
			ph.Admitted = append(ph.Admitted, next...)
			slices.Sort(ph.Admitted)
			return out
		}
	}
	return st
}
