package agent

import (
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestHookTypeIsThePlaceTheEngineNamed: HOOK_TYPE (the call's Place) is pre, post or check
// as the ledger key of the engine's action says, never one constant.
func TestHookTypeIsThePlaceTheEngineNamed(t *testing.T) {
	a := &Agent{inv: &inventory.Inventory{}}
	p := &pass{plan: &plan.Plan{Rollout: "web", Phases: []spec.Phase{{Name: "dev"}}}}
	for _, place := range []string{"pre", "post", "check"} {
		act := rollout.Action{Kind: rollout.ActRunHook, Key: rollout.HookKey(place, "notify", "web-dev-1"), Hook: spec.Hook{Name: "notify"}, Cluster: "web-dev-1"}
		if got := a.hookCall(p, "r2", act, "id", time.Time{}, nil).Place; got != place {
			t.Fatalf("a %s hook runs with HOOK_TYPE %q", place, got)
		}
	}
}
