package status

import (
	"fmt"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Approval is a phase's approval gate: what it asks, and every answer recorded.
type Approval struct {
	Required    int        `json:"required"`
	Groups      []string   `json:"groups,omitempty"`
	AfterChecks bool       `json:"afterChecks,omitempty"`
	AskedAt     *time.Time `json:"askedAt,omitempty"`
	OpenedAt    *time.Time `json:"openedAt,omitempty"`
	// Still is how many more distinct qualifying approvals the gate needs (0 once open).
	Still     int      `json:"still"`
	Approvals []Answer `json:"approvals,omitempty"`
	Rejection *Answer  `json:"rejection,omitempty"`
}

// Answer is one approval (or the rejection) as recorded: who, their groups, when, why, and
// whether it counts (else note says why not).
type Answer struct {
	By      string    `json:"by"`
	Groups  []string  `json:"groups,omitempty"`
	At      time.Time `json:"at"`
	Reason  string    `json:"reason,omitempty"`
	Counted bool      `json:"counted"`
	Note    string    `json:"note,omitempty"`
}

func approvalOf(g *state.ApprovalGate) *Approval {
	if g == nil {
		return nil
	}
	a := &Approval{Required: g.Required, Groups: g.Groups, AfterChecks: g.AfterChecks, AskedAt: g.AskedAt, OpenedAt: g.OpenedAt,
		Still: max(g.Required-g.Counted(), 0)}
	if g.OpenedAt != nil {
		a.Still = 0
	}
	for _, x := range g.Approvals {
		a.Approvals = append(a.Approvals, answerOf(x))
	}
	if g.Rejection != nil {
		r := answerOf(*g.Rejection)
		a.Rejection = &r
	}
	return a
}

func answerOf(x state.Approval) Answer {
	return Answer{By: orSomeone(x.By), Groups: x.Groups, At: x.At, Reason: x.Reason, Counted: x.Counted, Note: x.Note}
}

// waitingFor says what an unopened gate still needs: "1/2 approvals, 1 more from sre".
func waitingFor(a *Approval) string {
	s := fmt.Sprintf("%d/%d approvals", a.Required-a.Still, a.Required)
	if a.Still > 0 {
		s += fmt.Sprintf(", %d more", a.Still)
		if len(a.Groups) > 0 {
			s += " from " + strings.Join(a.Groups, " or ")
		}
	}
	return s
}

// approvalGate is the table's gate column for a gate not open: how far it is.
func approvalGate(p Phase) string {
	switch a := p.Approval; {
	case a.Rejection != nil:
		return "rejected by " + a.Rejection.By
	case a.AfterChecks && a.AskedAt == nil:
		return "approval after checks"
	}
	return "awaiting " + waitingFor(p.Approval)
}

// approvalRows are the table's rows of a phase's answers, each with who, what, how long
// ago, and why it does not count.
func approvalRows(p Phase, now time.Time) []row {
	a := p.Approval
	if a == nil {
		return nil
	}
	var rows []row
	for _, x := range a.Approvals {
		what := "counted"
		if !x.Counted {
			what = "ignored"
		}
		rows = append(rows, row{cells: []string{"  approved by " + x.By, what, "", ago(x.At, now), answerNote(x)}, start: x.At})
	}
	if x := a.Rejection; x != nil {
		rows = append(rows, row{cells: []string{"  rejected by " + x.By, "rejected", "", ago(x.At, now), answerNote(*x)}, start: x.At})
	}
	return rows
}

// answerNote is why an answer does not count, else the approver's groups and reason.
func answerNote(x Answer) string {
	if x.Note != "" {
		return x.Note
	}
	parts := []string{}
	if len(x.Groups) > 0 {
		parts = append(parts, "groups "+strings.Join(x.Groups, ","))
	}
	if x.Reason != "" {
		parts = append(parts, fmt.Sprintf("%q", x.Reason))
	}
	return strings.Join(parts, "; ")
}

func ago(t, now time.Time) string {
	return max(now.Sub(t), 0).Round(time.Second).String() + " ago"
}

// approvalText is a phase's gate in the status key, while it waits or once refused.
func approvalText(p Phase) string {
	a := p.Approval
	switch {
	case a == nil || a.OpenedAt != nil:
		return ""
	case a.Rejection != nil:
		return fmt.Sprintf(", rejected by %s at %s", a.Rejection.By, a.Rejection.At.UTC().Format(time.RFC3339))
	case a.AfterChecks && a.AskedAt == nil:
		return ""
	}
	var who []string
	for _, x := range a.Approvals {
		if x.Counted {
			who = append(who, x.By+" at "+x.At.UTC().Format(time.RFC3339))
		}
	}
	s := ", awaiting " + waitingFor(a)
	if len(who) > 0 {
		s += " (approved by " + strings.Join(who, ", ") + ")"
	}
	return s
}
