package rollout

import (
	"fmt"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// tracking reports whether r walks its tracks now (its shared phases are behind it), with
// the plan lined up with its phases.
func tracking(r *state.Rollout, p plan.Plan) bool {
	return r != nil && r.Status == StatusProgressing && len(r.Tracks) > 0 && r.Phase >= r.Split() && linedUp(r, p)
}

// trackEdits applies the phase edits to a rollout walking its tracks. Each keeps its
// rollout-wide meaning: approve, promote and reject name a phase and act on every track
// at that phase (a rejection applies the phase's onFailure to those tracks only); a jump
// would move tracks apart from their own gates and is refused.
func (ps *pass) trackEdits(c *control.Controls) {
	r, p := ps.st.Rollout, ps.p
	if c.Jump != "" {
		ps.reject(contract.JumpKey, c.Jump, "the rollout walks tracks (%s); jumps do not cross them (fix: approve or promote the phase, or remove it)", trackPlaces(r))
	}
	edits := []struct {
		key, phase string
		ready      func(ph *state.PhaseState, sp spec.Phase) bool
		do         func(q *pass)
	}{
		{contract.ApproveKey, c.Approve, func(ph *state.PhaseState, sp spec.Phase) bool { return waiting(ph, spec.ApprovalOf(sp)) },
			func(q *pass) { q.approve(c) }},
		{contract.PromoteKey, c.Promote, func(ph *state.PhaseState, _ spec.Phase) bool { return ph.Status == PhaseSoaking },
			func(q *pass) { q.promoteAt(c) }},
		{contract.RejectKey, c.Reject, func(ph *state.PhaseState, sp spec.Phase) bool {
			return spec.ApprovalOf(sp) != nil && ph.ApprovedBy == ""
		},
			func(q *pass) { q.rejectGate(c) }},
	}
	for _, e := range edits {
		if e.phase == "" {
			continue
		}
		n := 0
		for i := range r.Tracks {
			t := &r.Tracks[i]
			if t.Status != StatusProgressing || t.Phase >= len(r.Phases) || r.Phases[t.Phase].Name != e.phase || !e.ready(&r.Phases[t.Phase], p.Phases[t.Phase]) {
				continue
			}
			ps.inTrack(t, ps.o, e.do)
			n++
		}
		if n == 0 {
			ps.reject(e.key, e.phase, "no track is at phase %s waiting for it; the tracks are at %s (fix: remove it)", e.phase, trackPlaces(r))
		}
	}
}

// promoteAt ends the soak of the rollout's current phase early (promote).
func (ps *pass) promoteAt(c *control.Controls) {
	r, now := ps.st.Rollout, ps.now
	cur := &r.Phases[r.Phase]
	cur.SoakUntil = &now
	ps.emit(r, EvControlApplied, fmt.Sprintf("phase %s promoted by %s: soak ended early", cur.Name, who(c)))
	ps.consume(contract.PromoteKey)
}

// trackPlaces says where each track is: "eu at prod (Soaking), us Completed".
func trackPlaces(r *state.Rollout) string {
	var out []string
	for _, t := range r.Tracks {
		if t.Status == StatusProgressing && t.Phase < len(r.Phases) {
			out = append(out, fmt.Sprintf("%s at %s (%s)", t.Name, r.Phases[t.Phase].Name, r.Phases[t.Phase].Status))
		} else {
			out = append(out, t.Name+" "+string(t.Status))
		}
	}
	return strings.Join(out, ", ")
}
