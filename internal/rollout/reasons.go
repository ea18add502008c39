package rollout

import (
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// ReasonEvery is how often a change of nothing but the reasons waiting clusters give
// ("sync running", "health Progressing", …) is written on its own: such reasons change
// several times per cluster as Argo CD syncs it, and are for people, who read them through
// `cmp-phase status`; every other change is written at once, with the latest reasons.
const ReasonEvery = 5 * time.Second

// reasonsOnly reports whether next differs from cur in nothing but the reasons of
// clusters whose status did not change.
func reasonsOnly(cur, next *state.State) bool {
	if cur == nil || cur.Rollout == nil || next.Rollout == nil || len(cur.Rollout.Phases) != len(next.Rollout.Phases) {
		return false
	}
	masked := next.Clone()
	for i, ph := range masked.Rollout.Phases {
		for c, cs := range ph.Clusters {
			if was, ok := cur.Rollout.Phases[i].Clusters[c]; ok && was.Status == cs.Status {
				cs.Reason = was.Reason
				ph.Clusters[c] = cs
			}
		}
	}
	return state.Equal(cur, masked)
}
