package rollout

import (
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Lineup is how a rollout of the plan lines up the children taking part: each phase with
// its members in admission order (Snapshot) and, from the first phase with tracks on, one
// copy of each later phase per track (splitTracks), with the tracks. Every rollout starts
// from it, and `cmp-phase plan` prints it, so the two cannot disagree.
func Lineup(p plan.Plan, taking []targets.Child) ([]state.PhaseState, []state.Track, error) {
	r := &state.Rollout{Revision: p.Revision}
	if _, err := lineup(r, p, taking); err != nil {
		return nil, nil, err
	}
	return r.Phases, r.Tracks, nil
}

// lineup sets r's phases (pending, with their members) and tracks; it returns each plan
// phase's members before the split, which the failure budget counts.
func lineup(r *state.Rollout, p plan.Plan, taking []targets.Child) ([][]string, error) {
	members, err := Snapshot(p.Phases, taking)
	if err != nil {
		return nil, err
	}
	for i, ph := range p.Phases {
		r.Phases = append(r.Phases, state.PhaseState{Name: ph.Name, Status: PhasePending, Members: members[i]})
	}
	if err := splitTracks(r, p, taking); err != nil {
		return nil, err
	}
	return members, nil
}
