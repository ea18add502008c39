package agent

import (
	"fmt"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// splitState is a rollout split after dev into tracks eu and us, each at its prod with a
// running pre-hook notify.
func splitState() *state.State {
	running := map[string]state.HookRun{"pre/notify": {Kind: "pre", Name: "notify", Status: state.HookRunning}}
	return &state.State{Rollout: &state.Rollout{Revision: "r2", Phase: 1, Phases: []state.PhaseState{
		{Name: "dev"}, {Name: "prod", Track: "eu", Hooks: running}, {Name: "prod", Track: "us", Hooks: running},
	}, Tracks: []state.Track{{Name: "eu", Phase: 1}, {Name: "us", Phase: 2}}}}
}

// TestTracksRunsAreKeptApart: one hook of one phase in two tracks is two runs, each with
// its own idempotency key and result, named in the plan's phase, with its track's name.
func TestTracksRunsAreKeptApart(t *testing.T) {
	st := splitState()
	r := st.Rollout
	if eu, us := idempotencyKey("web", r, 1, "pre/notify"), idempotencyKey("web", r, 2, "pre/notify"); eu != "web/r2/prod@eu/pre/notify" || us != "web/r2/prod@us/pre/notify" {
		t.Fatalf("keys %s %s", eu, us)
	}
	if idempotencyKey("web", r, 0, "pre/x") != "web/r2/dev/pre/x" {
		t.Fatal("a shared phase's key is as before")
	}
	a := &Agent{runs: hookRuns{results: map[string]map[string]rollout.HookResult{"web": {
		"web/r2/prod@us/pre/notify": {Status: state.HookSucceeded},
	}}}}
	got := a.trackHookResults("web", st)
	if fmt.Sprint(got) != fmt.Sprint(map[string]map[string]rollout.HookResult{"eu": {}, "us": {"pre/notify": {Status: state.HookSucceeded}}}) {
		t.Fatalf("results %v", got)
	}
	if !a.pendingResult(r, "web", "web/r2/prod@eu/pre/notify") || !a.pendingResult(r, "web", "web/r2/prod@us/pre/notify") {
		t.Fatal("each track's running run waits for its ledger")
	}
	if a.trackHookResults("web", &state.State{Rollout: &state.Rollout{}}) != nil {
		t.Fatal("no tracks: no track results")
	}
	phases := []spec.Phase{{Name: "dev"}, {Name: "prod"}}
	if act := inPlan(phases, r, rollout.Action{Phase: 2, Track: "us"}); act.Phase != 1 || act.Track != "us" {
		t.Fatalf("the run names the plan's phase: %+v", act)
	}
	p := &pass{plan: &plan.Plan{Rollout: "web"}}
	if vars := (&Agent{}).clusterVars(p, "prod", rollout.Action{Track: "us"}); vars[".track.name"] != "us" {
		t.Fatalf("vars %v", vars)
	}
}
