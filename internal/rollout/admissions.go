package rollout

import (
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Admissions is what a rollout of the line-up phases (Lineup) of p admits when every
// admitted member settles at once and every gate is approved: per phase, its batches in
// order, each naming only members no earlier phase admitted. It answers "which cluster
// lands in which phase" (cmp-phase plan) with the rule the engine admits by
// (nextAdmission), not a copy of it.
func Admissions(p plan.Plan, phases []state.PhaseState) [][][]string {
	admitted := map[string]bool{}
	out := make([][][]string, len(phases))
	for i, ph := range phases {
		k := slices.IndexFunc(p.Phases, func(x spec.Phase) bool { return x.Name == ph.Name })
		if k < 0 {
			continue
		}
		sp := p.Phases[k]
		var started []string
		for range len(ph.Members) + 1 { // each batch admits someone, or the phase is done
			a := nextAdmission(phaseBatch{Size: sp.Size, Steps: sp.MatchAppLabels, Throttle: sp.Throttle, Approved: true,
				Members: ph.Members, Started: started, Admitted: admitted})
			if len(a.Next) == 0 {
				break
			}
			out[i] = append(out[i], a.Next)
			for _, c := range a.Next {
				admitted[c] = true
			}
			started = append(started, a.Next...)
			if a.Full {
				break
			}
		}
	}
	return out
}
