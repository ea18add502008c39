package status

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Text is the summary the agent keeps in the state ConfigMap's status key: the rollout, each
// phase, a pause, skipped children, and every refused edit with its fix. It reads no clock,
// so it changes exactly when the document does; an Outline holds all it reads.
func Text(d Doc) string {
	var b strings.Builder
	if d.Status == Idle {
		fmt.Fprintf(&b, "no rollout; deployed %s\n", short(d.Deployed))
	} else {
		rolloutText(&b, d)
	}
	if w := d.Window; w != nil {
		fmt.Fprintf(&b, "window: %s\n", windowText(w))
	}
	if p := d.Paused; p != nil {
		fmt.Fprintf(&b, "paused %sby %s since %s: %s", fleetWide(p), orSomeone(p.By), p.Since.UTC().Format(time.RFC3339), p.Reason)
		if p.Until != nil {
			fmt.Fprintf(&b, " (until %s)", p.Until.UTC().Format(time.RFC3339))
		}
		b.WriteString("\n")
	}
	for _, r := range d.Rejected {
		fmt.Fprintf(&b, "refused %s\n", r)
	}
	return b.String()
}

// rolloutText is the rollout's part of Text: where it is, and each phase.
func rolloutText(b *strings.Builder, d Doc) {
	fmt.Fprintf(b, "rollout of %s: %s", short(d.Revision), d.Status)
	if i := slices.IndexFunc(d.Phases, func(p Phase) bool { return p.Name == d.Phase }); d.Phase != "" && i >= 0 {
		fmt.Fprintf(b, " at phase %s (%d/%d)", d.Phase, i+1, len(d.Phases))
	}
	if d.Reason != "" {
		fmt.Fprintf(b, ": %s", d.Reason)
	}
	b.WriteString("\n")
	for _, p := range d.Phases {
		fmt.Fprintf(b, "  %s: %s, %d/%d admitted", phaseLabel(p), p.Status, p.Admitted, p.Members)
		if p.Status == string(state.PhaseSoaking) && p.SoakUntil != nil {
			fmt.Fprintf(b, ", soaking until %s", p.SoakUntil.UTC().Format(time.RFC3339))
		}
		if p.DeadlineAt != nil && p.EndedAt.IsZero() && p.Status != string(state.PhaseSoaking) {
			fmt.Fprintf(b, ", members settle by %s", p.DeadlineAt.UTC().Format(time.RFC3339))
		}
		b.WriteString(approvalText(p))
		b.WriteString("\n")
	}
	tracksText(b, d)
	if len(d.Skipped) > 0 {
		fmt.Fprintf(b, "skipped: %s\n", strings.Join(d.Skipped, ", "))
	}
	if d.FailureBudget != nil {
		fmt.Fprintf(b, "failures: %s\n", d.FailureBudget)
	}
}

func orSomeone(s string) string {
	if s == "" {
		return "someone"
	}
	return s
}

// fleetWide names the fleet-wide stop in a pause's line.
func fleetWide(p *Pause) string {
	if p.Fleet {
		return "(fleet-wide stop; resume-all lifts it) "
	}
	return ""
}
