package status

import (
	"fmt"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Budget is the rollout-wide failure budget (spec-level maxFailures) and what is spent of it.
type Budget struct {
	Failures    int `json:"failures"`    // distinct children failed or errored across the phases
	MaxFailures int `json:"maxFailures"` // how many the rollout tolerates, in children
}

// budgetOf is r's failure budget, or nil when its spec sets none.
func budgetOf(r *state.Rollout) *Budget {
	if r.MaxFailures == nil {
		return nil
	}
	return &Budget{Failures: len(r.Failures()), MaxFailures: *r.MaxFailures}
}

// String is the budget as Text and Table show it.
func (b *Budget) String() string {
	spent := ""
	if b.Failures > b.MaxFailures {
		spent = " (spent)"
	}
	return fmt.Sprintf("%d of maxFailures %d across the rollout%s", b.Failures, b.MaxFailures, spent)
}
