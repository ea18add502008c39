package render

import (
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// decisionMemo keeps, per compiled revision and inventory, what the agent asks on every pass:
// the subjects (Subjects) and, per child, whether it differs from a revision it may run now
// (Changed). Both are pure in (revision, inventory, namespace, the other revision), and the
// agent passes the same inventory object until it changes; at 10,000 children recomputing
// them — two renders per child not moved yet — was most of a decision (issue 15).
type decisionMemo struct {
	inv      *inventory.Inventory
	subjects []targets.Child
	changed  map[string]bool // other revision's id and content tail, namespace, child → differs
}

// memoFor returns the revision's memo for inv, emptied when the inventory changed. The
// caller holds c.mu.
func (c *compiledRev) memoFor(inv *inventory.Inventory) *decisionMemo {
	if c.memo.inv != inv {
		c.memo = decisionMemo{inv: inv, changed: map[string]bool{}}
	}
	return &c.memo
}

// maxChanged bounds the memo of Changed answers: a few revisions' worth of a large fleet.
const maxChanged = 100_000
