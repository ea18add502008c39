package rollout

import (
	"fmt"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// budgetOf is the rollout-wide failure budget of a rollout starting with these members, in
// children (a percentage of its distinct members, floored), or nil when the plan sets none.
// It is kept in the state, fixed, like the membership snapshot.
func budgetOf(p plan.Plan, members [][]string) *int {
	if p.MaxFailures.Kind == spec.SizeAll {
		return nil
	}
	var all []string
	for _, m := range members {
		all = append(all, m...)
	}
	slices.Sort(all)
	n := spec.Budget(p.MaxFailures, len(slices.Compact(all)))
	return &n
}

// budgetSpent applies the current phase's onFailure when the rollout-wide budget is spent:
// more distinct children failed or errored across every phase than it tolerates. Each
// phase's own maxFailures still applies first; this one adds up what they tolerated.
// onFailure continue goes on, as it does for a phase's budget. It reports whether the
// rollout stopped or started rolling back.
func (ps *pass) budgetSpent(ph *state.PhaseState, sp spec.Phase) bool {
	r := ps.st.Rollout
	if r.MaxFailures == nil || sp.OnFailure == "continue" {
		return false
	}
	failed := r.Failures()
	if len(failed) <= *r.MaxFailures {
		return false
	}
	status := PhaseErrored
	for _, c := range failed {
		if failedIn(r, c) {
			status = PhaseFailed // a gate said no somewhere; Errored only when we could not tell
		}
	}
	reason := fmt.Sprintf("phase %s %s: the rollout-wide failure budget is spent: %d children failed across the rollout (%s), maxFailures %d",
		ph.Name, status, len(failed), describe(failed), *r.MaxFailures)
	ps.stopOrRollBack(ph, sp, status, reason)
	return true
}

// failedIn reports whether child c is Failed (not Errored) in some phase of r.
func failedIn(r *state.Rollout, c string) bool {
	for _, ph := range r.Phases {
		if ph.Clusters[c].Status == ClusterFailed {
			return true
		}
	}
	return false
}
