package rollout

import (
	"cmp"
	"slices"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Moving lists the moves the state decided that the live children (child → the revision
// its cmp-phase.io/revision annotation names) do not show yet, sorted by child. The agent
// applies them itself, the parent's render confirming the same bytes; a child that does
// not exist yet is the parent's to create, and every other child is the parent's alone.
func Moving(st *state.State, live map[string]string) []Move {
	r := st.Rollout
	if !r.Active() {
		return nil
	}
	assigned := st.Assignments()
	var out []Move
	add := func(c string, since time.Time) {
		cur, exists := live[c]
		rev, _, ok := assigned(c)
		if exists && ok && cur != rev {
			out = append(out, Move{Child: c, Revision: rev, Since: since})
		}
	}
	for _, ph := range r.Phases {
		for _, c := range ph.Admitted {
			add(c, ph.Clusters[c].AdmittedAt)
		}
		if ph.RollbackAt != nil {
			for _, c := range ph.Returning {
				add(c, *ph.RollbackAt)
			}
		}
	}
	slices.SortFunc(out, func(a, b Move) int { return cmp.Compare(a.Child, b.Child) })
	return slices.CompactFunc(out, func(a, b Move) bool { return a.Child == b.Child })
}
