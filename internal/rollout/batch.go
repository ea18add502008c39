package rollout

import (
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// phaseBatch is what admission batching reads of one phase at one moment.
type phaseBatch struct {
	Size spec.Size // the phase's size; Size.Gate is a manual gate (RollingSync maxUpdate: 0)
	// Steps is a RollingSync/RollingUpdate step (spec.Phase.MatchAppLabels): Size bounds
	// the members in flight, and the step ends only once every member is admitted.
	// Otherwise (phaseDeployment) Size is how many members are admitted, cumulatively.
	Steps bool
	// Throttle bounds the members in flight of a phaseDeployment phase composed with a
	// spec.strategy step (the step's maxUpdate); SizeAll does not throttle.
	Throttle spec.Size
	Approved bool     // a person approved the manual gate
	Members  []string // the phase's members, in the snapshot's order (arrange)
	Skipped  []string // children a person quarantined: never admitted, not counted
	Started  []string // members this phase admitted
	// Admitted is every child any phase of the rollout admitted, this one's included
	// (phaseDeployment admission is cumulative across phases sharing targets).
	Admitted map[string]bool
	InFlight int // Steps: members this phase admitted that have not settled
}

// admission is what a phase admits next.
type admission struct {
	Next []string // members to admit now, in the snapshot's order
	// Full: once Next is admitted, the phase has admitted every member it will and no
	// manual gate holds any back; it may end when they have settled.
	Full bool
}

// nextAdmission is the one rule of admission batching: which members of a phase to admit
// now — phaseDeployment up to its size counting members earlier phases admitted,
// RollingSync steps at most their size in flight, an unapproved manual gate nobody (an
// approved one everyone), skipped members never — and whether the phase is then full.
func nextAdmission(b phaseBatch) admission {
	members := without(b.Members, b.Skipped)
	size := b.Size
	if size.Gate && b.Approved {
		size = opened(size)
	}
	var next []string
	if b.Steps {
		started := make(map[string]bool, len(b.Started))
		for _, c := range b.Started {
			started[c] = true
		}
		next = NextBatch(size, members, started, b.InFlight)
	} else {
		next = ToAdmit(size, members, b.Admitted)
		if room := Count(b.Throttle, len(members)) - b.InFlight; len(next) > room {
			next = next[:max(room, 0)]
		}
	}
	need := size // how many must be admitted before the phase may end
	if b.Steps {
		need = spec.Size{Kind: spec.SizeAll} // maxUpdate only throttles
	}
	admitting := make(map[string]bool, len(next))
	for _, c := range next {
		admitting[c] = true
	}
	have := 0
	for _, m := range members {
		if b.Admitted[m] || admitting[m] {
			have++
		}
	}
	held := b.Size.Gate && !b.Approved && len(b.Started)+len(next) < len(b.Members)
	return admission{Next: next, Full: have >= Count(need, len(members)) && !held}
}

// batchOf reads phase ph of r for nextAdmission (InFlight left 0).
func batchOf(r *state.Rollout, ph *state.PhaseState, sp spec.Phase) phaseBatch {
	return phaseBatch{
		Size: sp.Size, Steps: sp.MatchAppLabels, Throttle: sp.Throttle, Approved: ph.ApprovedBy != "",
		Members: ph.Members, Skipped: r.Skipped, Started: ph.Admitted, Admitted: admittedSet(r),
	}
}

// opened is a manual gate's size once approved: a RollingSync gate (maxUpdate 0) admits
// everyone; a gated phase of a composed spec admits its own percentage or maxUpdate.
func opened(size spec.Size) spec.Size {
	if size.Kind == spec.SizeCount && size.Value == 0 {
		return spec.Size{Kind: spec.SizeAll}
	}
	size.Gate = false
	return size
}

// inFlight counts the children ph admitted that have not settled.
func inFlight(ph *state.PhaseState) int {
	n := 0
	for _, c := range ph.Admitted {
		if !ph.Clusters[c].Status.IsTerminal() {
			n++
		}
	}
	return n
}

// without returns members less the skipped ones (members itself when none is skipped).
func without(members, skipped []string) []string {
	if len(skipped) == 0 {
		return members
	}
	return slices.DeleteFunc(slices.Clone(members), func(m string) bool { return slices.Contains(skipped, m) })
}
