package rollout

import (
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// recordUnselected keeps which live children the state neither deploys nor admits (a
// RollingSync spec's children no step selects, which the render creates for manual sync):
// the renderer leaves out an unselected child whose template cannot render only while it
// was never deployed, and fails closed once one of them exists live. Written only when it
// changes; not at all on a pass that observed no children, for a spec without steps (it
// renders no unselected child), or for a removed rollout.
func recordUnselected(st *state.State, p plan.Plan, o Observed) {
	if len(o.Children) == 0 || st.RemovedRevision != "" || !slices.ContainsFunc(p.Phases, func(ph spec.Phase) bool { return ph.MatchAppLabels }) {
		return
	}
	var admitted map[string]bool // only asked for once a child is not deployed
	var live []string
	for c := range o.Children {
		if _, deployed := slices.BinarySearch(st.Children, c); deployed {
			continue
		}
		if admitted == nil {
			admitted = admittedSet(st.Rollout)
		}
		if !admitted[c] {
			live = append(live, c)
		}
	}
	slices.Sort(live)
	if !slices.Equal(live, st.Unselected) {
		st.Unselected = live
	}
}
