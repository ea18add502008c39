package rollout

import (
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// stampTimes records when the rollout, each phase and each admitted child reached a
// terminal (settled) status on this pass, so a person can see where the time went: a
// status that became terminal now gets now; a status that is not terminal has no end.
// A terminal status that did not change keeps what it has (states from before the times
// were kept stay without them rather than get a wrong one).
func stampTimes(cur, st *state.State, now time.Time) {
	r := st.Rollout
	if r == nil {
		return
	}
	was := sameRollout(cur, r)
	r.EndedAt = endTime(r.Status.IsTerminal(), was == nil || was.Status != r.Status, was != nil, r.EndedAt, now)
	for i := range r.Phases {
		ph := &r.Phases[i]
		var before *state.PhaseState
		if was != nil && i < len(was.Phases) && was.Phases[i].Name == ph.Name {
			before = &was.Phases[i]
		}
		ph.EndedAt = endTime(ph.Status.IsTerminal(), before == nil || before.Status != ph.Status, before != nil, ph.EndedAt, now)
		for c, cs := range ph.Clusters {
			changed, known := true, false
			if before != nil {
				b, ok := before.Clusters[c]
				changed, known = !ok || b.Status != cs.Status, ok
			}
			if at := endTime(cs.Status.IsTerminal(), changed, known, cs.SettledAt, now); !at.Equal(cs.SettledAt) {
				cs.SettledAt = at
				ph.Clusters[c] = cs
			}
		}
	}
}

// endTime is the end time of something whose status is terminal (or not) and changed (or
// not) on this pass, given the end time it has: a change from a known status restamps it (a
// child Done and then Failed by a post-hook ended when it failed), a change from an unknown
// one (a state from before the times) stamps only what has no time.
func endTime(terminal, changed, known bool, at, now time.Time) time.Time {
	switch {
	case !terminal:
		return time.Time{}
	case changed && (at.IsZero() || known):
		return now
	}
	return at
}

// sameRollout is cur's rollout when it is the rollout r continues (same revision, same
// start), else nil.
func sameRollout(cur *state.State, r *state.Rollout) *state.Rollout {
	if cur == nil || cur.Rollout == nil || cur.Rollout.Revision != r.Revision || !cur.Rollout.StartedAt.Equal(r.StartedAt) {
		return nil
	}
	return cur.Rollout
}
