package hookrun

import (
	"context"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestAPostDeleteResultWaitsForItsLedger: a post-delete run's result is kept while the
// state's post-delete ledger records it Running (a pass that read results before it ended
// must not lose it), handed to the engine by its ledger key, and let go once recorded; a
// run of the same hook started again later has a key of its own.
func TestAPostDeleteResultWaitsForItsLedger(t *testing.T) {
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	st := &state.State{AfterDelete: map[string]state.HookRun{
		"postdelete/deregister/prod-1": {Kind: rollout.KindPostDelete, Name: "deregister", Cluster: "prod-1", Status: state.HookRunning, StartedAt: at},
	}}
	act := rollout.Action{Kind: rollout.ActRunHook, Key: "postdelete/deregister/prod-1", Phase: rollout.NoPhase}
	id := KeyOf("web", st, act)
	if !Started(st, act).Equal(at) || id != AfterDeleteKey("web", st, act.Key) {
		t.Fatalf("started %v, key %s", Started(st, act), id)
	}
	l := New(hooks.New(hooks.Limits{}), Options{})
	l.end("web", id, rollout.HookResult{Status: state.HookSucceeded}, nil)
	l.Settle(context.Background(), "web", st)
	if got := l.AfterDeleteResults("web", st); got[act.Key].Status != state.HookSucceeded {
		t.Fatalf("kept while the ledger says Running: %v", got)
	}
	recorded := st.Clone()
	run := recorded.AfterDelete[act.Key]
	run.Status = state.HookSucceeded
	recorded.AfterDelete[act.Key] = run
	l.Settle(context.Background(), "web", recorded)
	if _, kept := l.results["web"][id]; kept {
		t.Fatal("let go once the ledger recorded it")
	}
	again := st.Clone()
	run = again.AfterDelete[act.Key]
	run.StartedAt = at.Add(time.Hour)
	again.AfterDelete[act.Key] = run
	if KeyOf("web", again, act) == id {
		t.Fatal("a later run of the hook for the same child has a key of its own")
	}
}
