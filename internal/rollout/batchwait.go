package rollout

import (
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// betweenBatches reports whether a step with a batchWait (seed 002's wave delay) holds its
// next batch: it admits in waves, the next one only once every member of the last has
// settled and the last of them has been settled for batchWait, so a batch has been
// healthy that long before the next starts. It asks to be woken when the wait ends.
func betweenBatches(ph *state.PhaseState, sp spec.Phase, inFlight int, now time.Time, acts *[]Action) bool {
	if sp.BatchWait <= 0 || len(ph.Admitted) == 0 {
		return false // the first batch never waits
	}
	if inFlight > 0 {
		return true // the wave in flight settles first (its settling wakes the agent)
	}
	var last time.Time
	for _, c := range ph.Admitted {
		at := ph.Clusters[c].SettledAt
		if at.IsZero() {
			at = now // settled on this pass: stampTimes records it once the step ends
		}
		if at.After(last) {
			last = at
		}
	}
	until := last.Add(sp.BatchWait)
	if !now.Before(until) {
		return false
	}
	*acts = append(*acts, Action{Kind: ActRequeue, At: until, Message: "batchWait of phase " + ph.Name})
	return true
}
