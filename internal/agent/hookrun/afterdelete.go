package hookrun

import (
	"fmt"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// AfterDeleteKey is the idempotency key of a post-delete run (ledger key ledgerKey of st's
// AfterDelete ledger): the rollout, the ledger key and when the ledger started the run, so
// a cluster that leaves, comes back and leaves again has a run of its own each time.
func AfterDeleteKey(name string, st *state.State, ledgerKey string) string {
	return fmt.Sprintf("%s/afterdelete/%s/%d", name, ledgerKey, st.AfterDelete[ledgerKey].StartedAt.UnixNano())
}

// KeyOf is the idempotency key of the run act asks for in st: a phase's (Key), or a
// post-delete one (AfterDeleteKey).
func KeyOf(name string, st *state.State, act rollout.Action) string {
	if act.Phase == rollout.NoPhase {
		return AfterDeleteKey(name, st, act.Key)
	}
	return Key(name, st.Rollout, act.Phase, act.Key)
}

// afterDeleteIDs are the post-delete runs of st's ledger by idempotency key, with their
// status.
func afterDeleteIDs(name string, st *state.State) map[string]state.HookStatus {
	out := make(map[string]state.HookStatus, len(st.AfterDelete))
	for key, run := range st.AfterDelete {
		out[AfterDeleteKey(name, st, key)] = run.Status
	}
	return out
}

// AfterDeleteResults are the rollout's ended post-delete runs that st's ledger still
// records Running, by ledger key (they are apart from every phase's: postdelete/…).
func (l *Runs) AfterDeleteResults(name string, st *state.State) map[string]rollout.HookResult {
	out := map[string]rollout.HookResult{}
	if st == nil {
		return out
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for key, run := range st.AfterDelete {
		if res, ok := l.results[name][AfterDeleteKey(name, st, key)]; ok && run.Status == state.HookRunning {
			out[key] = res
		}
	}
	return out
}
