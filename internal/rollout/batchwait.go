package rollout

import (
	"fmt"
	"slices"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// betweenBatches reports whether a step with a batchWait (seed 002's wave delay) holds its
// next batch: it admits in waves, the next one only once every member of the last has
// settled and the last of them has been settled for batchWait, so a batch has been
// healthy that long before the next starts. It asks to be woken when the wait ends.
func (ps *pass) betweenBatches(ph *state.PhaseState, sp spec.Phase, inFlight int) bool {
	now := ps.now
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
	ps.requeue(until, "batchWait of phase "+ph.Name)
	return true
}

// batchChecked is the gate of a step with batchChecks between its batches: once the last
// wave has settled and another waits to be admitted, the phase's own checks (not per
// cluster, not measured through the soak) run on it, keyed by the batch (name@batch-N), and
// the next wave waits for them; a failure applies onFailure as any check's. It reports
// whether admission may go on.
func (ps *pass) batchChecked(ph *state.PhaseState, sp spec.Phase) bool {
	if !sp.BatchChecks || len(ph.Admitted) == 0 || inFlight(ph) > 0 {
		return true
	}
	b := batchOf(ps.st.Rollout, ph, sp)
	if len(nextAdmission(b).Next) == 0 {
		return true // nothing waits: the phase's own checks follow as always
	}
	checks := slices.DeleteFunc(beforeSoak(sp).Checks, spec.Hook.PerCluster)
	if len(checks) == 0 {
		return true
	}
	between := sp
	between.Checks = renamed(checks, fmt.Sprintf("@batch-%d", batchesAdmitted(ph)))
	return ps.hookGate(ph, between, KindCheck)
}

// batchesAdmitted is how many batches the phase admitted: its members' distinct admission
// times.
func batchesAdmitted(ph *state.PhaseState) int {
	seen := map[time.Time]bool{}
	for _, c := range ph.Admitted {
		seen[ph.Clusters[c].AdmittedAt] = true
	}
	return len(seen)
}
