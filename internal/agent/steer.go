package agent

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// controls reads a person's edits of the state ConfigMap.
func controls(data map[string]string, plan *render.Plan, now time.Time) *control.Controls {
	names := make([]string, len(plan.Phases))
	for i, p := range plan.Phases {
		names[i] = p.Name
	}
	c := control.Parse(data, names, now)
	return &c
}

// dataEdits are the ConfigMap data changes of a decision: the control keys acted on go, the
// status key shows where the rollout is.
func dataEdits(acts []rollout.Action, st *state.State) map[string]*string {
	edits := map[string]*string{}
	for _, a := range acts {
		if a.Kind == rollout.ActConsume {
			edits[a.Key] = nil
		}
	}
	if st != nil {
		status := Status(st)
		edits[contract.StatusKey] = &status
	}
	return edits
}

// Status is the human summary the agent keeps in the status key: the rollout, each phase,
// a pause, skipped children, and every refused edit with its fix. It depends on the state
// only (no clock), so it changes exactly when the state does.
func Status(st *state.State) string {
	var b strings.Builder
	r := st.Rollout
	switch {
	case r == nil:
		fmt.Fprintf(&b, "no rollout; deployed %s\n", short(st.Deployed))
	default:
		fmt.Fprintf(&b, "rollout of %s: %s", short(r.Revision), r.Status)
		if r.Phase < len(r.Phases) {
			fmt.Fprintf(&b, " at phase %s (%d/%d)", r.Phases[r.Phase].Name, r.Phase+1, len(r.Phases))
		}
		if r.Reason != "" {
			fmt.Fprintf(&b, ": %s", r.Reason)
		}
		b.WriteString("\n")
		for _, ph := range r.Phases {
			fmt.Fprintf(&b, "  %s: %s, %d/%d admitted", ph.Name, ph.Status, len(ph.Admitted), len(ph.Members))
			if ph.Status == state.PhaseSoaking && ph.SoakUntil != nil {
				fmt.Fprintf(&b, ", soaking until %s", ph.SoakUntil.UTC().Format(time.RFC3339))
			}
			b.WriteString("\n")
		}
		if len(r.Skipped) > 0 {
			fmt.Fprintf(&b, "skipped: %s\n", strings.Join(r.Skipped, ", "))
		}
	}
	if p := st.Paused; p != nil {
		fmt.Fprintf(&b, "paused by %s since %s: %s", orUnknown(p.By), p.Since.UTC().Format(time.RFC3339), p.Reason)
		if p.Until != nil {
			fmt.Fprintf(&b, " (until %s)", p.Until.UTC().Format(time.RFC3339))
		}
		b.WriteString("\n")
	}
	for _, k := range slices.Sorted(maps.Keys(st.Rejected)) {
		fmt.Fprintf(&b, "refused %s\n", st.Rejected[k])
	}
	return b.String()
}

func short(rev string) string { return rev[:min(12, len(rev))] }

func orUnknown(s string) string {
	if s == "" {
		return "someone"
	}
	return s
}
