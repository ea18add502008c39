package state

import "slices"

// Failures are the distinct children that failed or errored in any phase of the rollout,
// sorted, less those a person skipped: what its rollout-wide maxFailures counts.
func (r *Rollout) Failures() []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, ph := range r.Phases {
		for c, cs := range ph.Clusters {
			if cs.Status.Failure() && !slices.Contains(r.Skipped, c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
