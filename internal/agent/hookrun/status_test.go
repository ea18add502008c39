package hookrun

import (
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestTheLedgerKeepsEveryOutcomeApart: a metric check's Inconclusive is recorded as such
// (the engine pauses on it), never as Errored; an outcome the ledger has no status for is
// Errored, never left Running.
func TestTheLedgerKeepsEveryOutcomeApart(t *testing.T) {
	for o, want := range map[hooks.Outcome]state.HookStatus{
		hooks.Succeeded: state.HookSucceeded, hooks.Failed: state.HookFailed, hooks.Errored: state.HookErrored,
		hooks.Inconclusive: state.HookInconclusive, hooks.Outcome("Later"): state.HookErrored,
	} {
		if got := ledgerStatus(o); got != want {
			t.Errorf("%s recorded as %s, want %s", o, got, want)
		}
	}
}
