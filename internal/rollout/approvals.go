package rollout

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Events of approval gates.
const (
	// EvAwaitingApproval: a phase asks for approval (once per phase of a rollout).
	EvAwaitingApproval = "AwaitingApproval"
	// EvApprovalRecorded: an approval that counts; EvApprovalNotCounted one that does not
	// (the same person again, none of the gate's groups, nobody named), a Warning.
	EvApprovalRecorded   = "ApprovalRecorded"
	EvApprovalNotCounted = "ApprovalNotCounted"
	// EvPhaseRejected: a person refused a phase's approval gate; the phase failed.
	EvPhaseRejected = "PhaseRejected"
)

// gateRecord is ph's record of its approval gate, made from the plan's when missing.
func gateRecord(ph *state.PhaseState, a *spec.Approval) *state.ApprovalGate {
	if ph.Approval == nil {
		ph.Approval = &state.ApprovalGate{Required: a.Required, Groups: slices.Clone(a.Groups), AfterChecks: a.AfterChecks}
	}
	return ph.Approval
}

// askEntry records that a phase with an approval to enter it waits for one (its pre-hooks
// passed; admission holds everyone until the gate opens, see nextAdmission). A phase with
// no members has nobody to hold and asks nothing.
func (ps *pass) askEntry(ph *state.PhaseState, sp spec.Phase) {
	if a := spec.ApprovalOf(sp); a != nil && !a.AfterChecks && ph.ApprovedBy == "" && len(ph.Members) > 0 {
		ps.ask(ph, a)
	}
}

// leaveApproved is the approval to leave a phase (afterChecks): asked once its members are
// done and its checks, soak and post-hooks passed; the next phase waits until it opens.
func (ps *pass) leaveApproved(ph *state.PhaseState, sp spec.Phase) bool {
	a := spec.ApprovalOf(sp)
	if a == nil || !a.AfterChecks || ph.ApprovedBy != "" {
		return true
	}
	ps.ask(ph, a)
	return false
}

func (ps *pass) ask(ph *state.PhaseState, a *spec.Approval) {
	r, now := ps.st.Rollout, ps.now
	g := gateRecord(ph, a)
	if g.AskedAt != nil {
		return
	}
	g.AskedAt = &now
	ps.emit(r, EvAwaitingApproval, fmt.Sprintf("phase %s awaits approval: %s", ph.Name, Tally(g)))
}

// Tally says how far a gate is: "1/2 approvals, from sre".
func Tally(g *state.ApprovalGate) string {
	s := fmt.Sprintf("%d/%d approvals", g.Counted(), g.Required)
	if len(g.Groups) > 0 {
		s += ", from " + strings.Join(g.Groups, " or ")
	}
	return s
}

// waiting reports whether the current phase takes an answer (approve, reject) now: it has a
// gate not yet open, and a gate after checks only once it asked.
func waiting(ph *state.PhaseState, a *spec.Approval) bool {
	return a != nil && ph.ApprovedBy == "" && (!a.AfterChecks || (ph.Approval != nil && ph.Approval.AskedAt != nil))
}

// approve records one approval of the current phase's gate (the approve key, consumed with
// its approver keys, a history entry each), and opens the gate once Required distinct
// qualifying approvers are recorded.
func (ps *pass) approve(c *control.Controls) {
	r, p, now := ps.st.Rollout, ps.p, ps.now
	cur, a := &r.Phases[r.Phase], spec.ApprovalOf(p.Phases[r.Phase])
	if c.Approve != cur.Name || !waiting(cur, a) {
		ps.reject(contract.ApproveKey, c.Approve, "phase %s is not waiting for approval; the rollout is at %s%s (fix: remove it)", c.Approve, cur.Name, notYet(cur, a, c.Approve))
		return
	}
	g := gateRecord(cur, a)
	got := state.Approval{By: approverOf(c), Groups: c.ApproverGroups, At: now, Reason: c.Reason}
	got.Counted, got.Note = counts(g, got)
	g.Approvals = append(g.Approvals, got)
	ps.consume(contract.ApproveKey, contract.ApproverKey, contract.ApproverGroupsKey)
	if !got.Counted {
		ps.warn(r, EvApprovalNotCounted, fmt.Sprintf("phase %s: approval by %s does not count: %s (%s)", cur.Name, by(got.By), got.Note, Tally(g)))
		return
	}
	ps.emit(r, EvApprovalRecorded, fmt.Sprintf("phase %s: approval by %s%s (%s)", cur.Name, answerer(got), said(got.Reason), Tally(g)))
	if g.Counted() < g.Required {
		return
	}
	var names []string
	for _, ok := range g.Approvals {
		if ok.Counted {
			names = append(names, by(ok.By)+said(ok.Reason))
		}
	}
	g.OpenedAt, cur.ApprovedBy = &now, strings.Join(names, ", ")
	ps.emit(r, EvControlApplied, fmt.Sprintf("phase %s approved by %s", cur.Name, cur.ApprovedBy))
}

// notYet explains why a gate after checks takes no answer yet (the key waits for it).
func notYet(ph *state.PhaseState, a *spec.Approval, named string) string {
	if a == nil || !a.AfterChecks || named != ph.Name || ph.ApprovedBy != "" {
		return ""
	}
	return ", which asks for approval only once its checks, soak and post-hooks passed (the key is kept and counts then)"
}

// counts decides whether an approval counts towards g, and why not.
func counts(g *state.ApprovalGate, a state.Approval) (bool, string) {
	switch {
	case a.By == "" && (g.Required > 1 || len(g.Groups) > 0):
		return false, "it names no approver (fix: the CLI records one; by hand, set approver)"
	case len(g.Groups) > 0 && !slices.ContainsFunc(a.Groups, func(x string) bool { return slices.Contains(g.Groups, x) }):
		return false, fmt.Sprintf("not in %s (groups: %s)", strings.Join(g.Groups, " or "), strings.Join(a.Groups, ","))
	case a.By != "" && slices.ContainsFunc(g.Approvals, func(x state.Approval) bool { return x.Counted && x.By == a.By }):
		return false, "already approved: counts once"
	}
	return true, ""
}

// rejectGate fails the current phase whose approval gate a person refuses, with its
// onFailure (continue stops: a person said no); recorded with who and why.
func (ps *pass) rejectGate(c *control.Controls) {
	st, p, now := ps.st, ps.p, ps.now
	r := st.Rollout
	if r == nil || r.Status != StatusProgressing || r.Phase >= len(r.Phases) || !linedUp(r, p) {
		ps.reject(contract.RejectKey, c.Reject, "no phase is waiting for approval (fix: remove it)")
		return
	}
	cur, sp := &r.Phases[r.Phase], p.Phases[r.Phase]
	a := spec.ApprovalOf(sp)
	if c.Reject != cur.Name || a == nil || cur.ApprovedBy != "" {
		ps.reject(contract.RejectKey, c.Reject, "phase %s has no approval gate open to refuse; the rollout is at %s (fix: remove it; abort or rollback stop a rollout)", c.Reject, cur.Name)
		return
	}
	got := state.Approval{By: approverOf(c), Groups: c.ApproverGroups, At: now, Reason: c.Reason}
	gateRecord(cur, a).Rejection = &got
	ps.consume(contract.RejectKey, contract.ApproverKey, contract.ApproverGroupsKey)
	why := fmt.Sprintf("phase %s rejected by %s: %s", cur.Name, answerer(got), c.Reason)
	ps.emit(r, EvPhaseRejected, why)
	markFailed(cur, PhaseFailed, now)
	r.Status, r.Reason = StatusStopped, why
	if sp.OnFailure == "rollback" && st.Deployed != "" {
		r.Status = StatusRollingBack // Step rolls back on this pass
		ps.emit(r, EvRollingBack, "rolling back: "+why)
		return
	}
	if sp.OnFailure == "rollback" {
		r.Reason += " (nothing to roll back to on a first deployment: stopped)"
	}
	ps.emit(r, EvRolloutStopped, "rollout stopped: "+r.Reason)
}

// approverOf is who answers: the approver key, else by (a hand edit).
func approverOf(c *control.Controls) string {
	if c.Approver != "" {
		return c.Approver
	}
	return c.By
}

// answerer names an approver with their groups: "alice (groups sre, dev)".
func answerer(a state.Approval) string {
	if len(a.Groups) == 0 {
		return by(a.By)
	}
	return fmt.Sprintf("%s (groups %s)", by(a.By), strings.Join(a.Groups, ", "))
}

func said(reason string) string {
	if reason == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", reason)
}
