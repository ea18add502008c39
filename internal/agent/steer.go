package agent

import (
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/status"
)

// controls reads a person's edits of the state ConfigMap.
func controls(data map[string]string, pl *plan.Plan, now time.Time) *control.Controls {
	c := control.Parse(data, pl.PhaseNames(), now)
	return &c
}

// dataEdits are the ConfigMap data changes of a decision: the control keys acted on go, the
// status key shows where the rollout is (the status document's summary).
func dataEdits(name string, acts []rollout.Action, st *state.State) map[string]*string {
	edits := map[string]*string{}
	for _, a := range acts {
		if a.Kind == rollout.ActConsume {
			edits[a.Key] = nil
		}
	}
	if st != nil {
		text := status.Text(status.Outline(name, st))
		edits[contract.StatusKey] = &text
	}
	return edits
}
