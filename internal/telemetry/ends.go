package telemetry

import (
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// End is a rollout's or a phase's end that one state write recorded: its result (the
// terminal status it reached) and how long it ran, both from the state's own timestamps.
type End struct {
	Phase  string // "" for the rollout's end
	Result string
	Took   time.Duration
}

// Ends are the ends that the write of next over prev (the state that write replaced; nil:
// none) recorded. An end is one whose EndedAt the write set or moved (a Stopped rollout
// rolled back ends again, as RolledBack), and a rollout a newer one replaced while it ran
// (Abandoned, ended when the new one started). Pure, and judged on the write only: the
// process that wrote an end observes it once, and an agent restarted over a finished
// rollout reads a state whose times do not change, so observes nothing again.
func Ends(prev, next *state.State) []End {
	was, r := rolloutOf(prev), rolloutOf(next)
	same := was != nil && r != nil && was.Revision == r.Revision && was.StartedAt.Equal(r.StartedAt)
	var out []End
	if abandoned(was, r, same) {
		out = append(out, End{Result: string(state.RolloutAbandoned), Took: r.StartedAt.Sub(was.StartedAt)})
	}
	if r == nil {
		return out
	}
	out = append(out, phaseEnds(was, r, same)...)
	if r.Status.IsTerminal() && !r.EndedAt.IsZero() && !(same && was.EndedAt.Equal(r.EndedAt)) {
		out = append(out, End{Result: string(r.Status), Took: r.EndedAt.Sub(r.StartedAt)})
	}
	return out
}

// rolloutOf is st's rollout (nil for no state).
func rolloutOf(st *state.State) *state.Rollout {
	if st == nil {
		return nil
	}
	return st.Rollout
}

// abandoned reports whether r, another rollout than was, replaced it while it ran.
func abandoned(was, r *state.Rollout, same bool) bool {
	return was != nil && !same && was.Active() && !was.Status.IsTerminal() && r != nil && !r.StartedAt.Before(was.StartedAt)
}

// phaseEnds are the phases of r whose end the write recorded (same: was is r before it).
func phaseEnds(was, r *state.Rollout, same bool) []End {
	var out []End
	for i, ph := range r.Phases {
		if !ph.Status.IsTerminal() || ph.EndedAt.IsZero() || ph.StartedAt == nil {
			continue
		}
		if same && i < len(was.Phases) && was.Phases[i].Name == ph.Name && was.Phases[i].EndedAt.Equal(ph.EndedAt) {
			continue
		}
		out = append(out, End{Phase: ph.Name, Result: string(ph.Status), Took: ph.EndedAt.Sub(*ph.StartedAt)})
	}
	return out
}

// Triggered is when the rollout's passes saw the last member of the phase before the one
// whose first admission the write of next over prev made settle (the newest SettledAt of
// its members; ok false when the write admitted no phase's first child, or that phase is
// the rollout's first). The agent observes the trigger latency from it as it carries the
// write out: asks the parent to re-render and moves the admitted children.
func Triggered(prev, next *state.State) (detected time.Time, ok bool) {
	if next == nil || next.Rollout == nil || !next.Rollout.Active() {
		return time.Time{}, false
	}
	r := next.Rollout
	was := sameRollout(prev, r)
	for i, ph := range r.Phases {
		if len(ph.Admitted) == 0 || (was != nil && i < len(was.Phases) && was.Phases[i].Name == ph.Name && len(was.Phases[i].Admitted) > 0) {
			continue
		}
		j := previousPhase(r.Phases, i)
		if j < 0 {
			continue
		}
		for _, cs := range r.Phases[j].Clusters {
			if cs.SettledAt.After(detected) {
				detected = cs.SettledAt
			}
		}
		return detected, !detected.IsZero()
	}
	return time.Time{}, false
}

// sameRollout is prev's rollout if it is r before the write (the same revision, started at
// the same time), else nil.
func sameRollout(prev *state.State, r *state.Rollout) *state.Rollout {
	if prev != nil && prev.Rollout != nil && prev.Rollout.Revision == r.Revision && prev.Rollout.StartedAt.Equal(r.StartedAt) {
		return prev.Rollout
	}
	return nil
}

// previousPhase is the index of the phase walked before phases[i]: the nearest earlier one
// of its track, or shared (-1: none).
func previousPhase(phases []state.PhaseState, i int) int {
	for j := i - 1; j >= 0; j-- {
		if phases[j].Track == "" || phases[j].Track == phases[i].Track {
			return j
		}
	}
	return -1
}

// Pending is the state of a current phase's member not admitted yet.
const Pending = "Pending"

// PhaseChildren counts the children of the rollout's current phase by state: its
// admitted children by their status, its members not admitted yet as Pending. A rollout
// that stopped or rolled back keeps its phase's counts (what stopped it stays on the
// dashboard); empty when there is no rollout or it completed.
func PhaseChildren(st *state.State) (phase string, counts map[string]int) {
	r := st.Rollout
	if r == nil || r.Status == state.RolloutCompleted || r.Phase >= len(r.Phases) {
		return "", nil
	}
	ph := r.Phases[r.Phase]
	counts = map[string]int{}
	for _, cs := range ph.Clusters {
		counts[string(cs.Status)]++
	}
	for _, c := range ph.Members {
		if _, ok := ph.Clusters[c]; !ok {
			counts[Pending]++
		}
	}
	return ph.Name, counts
}
