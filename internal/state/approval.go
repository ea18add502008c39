package state

import "time"

// ApprovalGate is a phase's approval gate as its rollout asked it (copied from the plan when
// the phase started, so the status needs no plan) and what people answered. It belongs to
// the rollout, so to the rollout's revision: a new rollout asks again.
type ApprovalGate struct {
	Required int      `json:"required"`
	Groups   []string `json:"groups,omitempty"`
	// AfterChecks: the gate to leave the phase (asked once its checks, soak and post-hooks
	// passed), else the gate to enter it.
	AfterChecks bool `json:"afterChecks,omitempty"`
	// AskedAt is when the phase began waiting for approval (an entry gate: when the phase
	// started; after checks: when they had passed). Nil until then.
	AskedAt *time.Time `json:"askedAt,omitempty"`
	// OpenedAt is when Required distinct qualifying approvals were recorded.
	OpenedAt *time.Time `json:"openedAt,omitempty"`
	// Approvals are every approval recorded, in order, counted or not.
	Approvals []Approval `json:"approvals,omitempty"`
	// Rejection is the person who refused the gate (the phase failed), nil otherwise.
	Rejection *Approval `json:"rejection,omitempty"`
}

// Approval is one person's answer to an approval gate, as the edit recorded them.
type Approval struct {
	By     string    `json:"by"`
	Groups []string  `json:"groups,omitempty"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason,omitempty"`
	// Counted: it counts towards Required. Otherwise Note says why not (the same person
	// again, none of the gate's groups, no approver named).
	Counted bool   `json:"counted,omitempty"`
	Note    string `json:"note,omitempty"`
}

// Counted is how many approvals count towards the gate.
func (g *ApprovalGate) Counted() int {
	n := 0
	for _, a := range g.Approvals {
		if a.Counted {
			n++
		}
	}
	return n
}

// Clone is a deep copy (nil for nil).
func (g *ApprovalGate) Clone() *ApprovalGate {
	if g == nil {
		return nil
	}
	out := *g
	out.Groups = cloneStrings(g.Groups)
	out.AskedAt, out.OpenedAt = clonePtr(g.AskedAt), clonePtr(g.OpenedAt)
	out.Approvals = make([]Approval, len(g.Approvals))
	for i, a := range g.Approvals {
		a.Groups = cloneStrings(a.Groups)
		out.Approvals[i] = a
	}
	if g.Approvals == nil {
		out.Approvals = nil
	}
	if g.Rejection != nil {
		r := *g.Rejection
		r.Groups = cloneStrings(r.Groups)
		out.Rejection = &r
	}
	return &out
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string{}, s...)
}
