package hookrun

import (
	"context"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestGoKeepsTheResultUntilTheLedgerHasIt: an ended run's result is kept under its
// rollout and key, the run is no longer in flight, and the agent is told; a run cut short
// by the agent's shutdown keeps no result (the ledger's Running makes the next agent run
// it again), though the agent is told all the same.
func TestGoKeepsTheResultUntilTheLedgerHasIt(t *testing.T) {
	for _, cut := range []bool{false, true} {
		l := New(hooks.New(hooks.Limits{}), Options{PerHost: 1})
		ctx, cancel := context.WithCancel(context.Background())
		if cut {
			cancel()
		} else {
			defer cancel()
		}
		id := "web/r2/dev/check/x"
		if !l.Begin("web", id) {
			t.Fatal("a new run does not begin")
		}
		ended := 0
		l.Go(ctx, Run{Key: "check/x", Call: hooks.Call{Rollout: "web", IdempotencyKey: id, Hook: spec.Hook{Name: "x", Type: "nosuch"}},
			Vars: map[string]string{}, Ended: func() { ended++ }})
		res, kept := l.results["web"][id]
		if ended != 1 || l.inFlight[id] || kept == cut {
			t.Fatalf("cut %v: told %d, in flight %v, kept %v", cut, ended, l.inFlight[id], kept)
		}
		if !cut && (res.Status != state.HookErrored || res.Attempts != 1 || !strings.Contains(res.Message, "nosuch")) {
			t.Fatalf("a hook of a type this build does not run is Errored: %+v", res)
		}
	}
}

// TestHostSlotsCapEachHost: at most PerHost runs hold a host's slots at once; a run that
// reaches no host takes none, and one whose context ends stops waiting.
func TestHostSlotsCapEachHost(t *testing.T) {
	l := New(nil, Options{PerHost: 1})
	release := l.HostSlot(context.Background(), "a.example")
	other := l.HostSlot(context.Background(), "b.example") // another host: its own slots
	none := l.HostSlot(context.Background(), "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l.HostSlot(ctx, "a.example")() // full: gives up with ctx, its release a no-op
	release()
	l.HostSlot(context.Background(), "a.example")() // free again
	other()
	none()
}
