package hookrun

import (
	"fmt"
	"testing"
	"time"

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
	if eu, us := Key("web", r, 1, "pre/notify"), Key("web", r, 2, "pre/notify"); eu != "web/r2/prod@eu/pre/notify" || us != "web/r2/prod@us/pre/notify" {
		t.Fatalf("keys %s %s", eu, us)
	}
	if Key("web", r, 0, "pre/x") != "web/r2/dev/pre/x" {
		t.Fatal("a shared phase's key is as before")
	}
	l := New(nil, Options{})
	l.results["web"] = map[string]rollout.HookResult{"web/r2/prod@us/pre/notify": {Status: state.HookSucceeded}}
	got := l.TrackResults("web", st)
	if fmt.Sprint(got) != fmt.Sprint(map[string]map[string]rollout.HookResult{"eu": {}, "us": {"pre/notify": {Status: state.HookSucceeded}}}) {
		t.Fatalf("results %v", got)
	}
	if !pendingResult(r, "web", "web/r2/prod@eu/pre/notify") || !pendingResult(r, "web", "web/r2/prod@us/pre/notify") {
		t.Fatal("each track's running run waits for its ledger")
	}
	if l.TrackResults("web", &state.State{Rollout: &state.Rollout{}}) != nil {
		t.Fatal("no tracks: no track results")
	}
	phases := []spec.Phase{{Name: "dev"}, {Name: "prod"}}
	if act := InPlan(phases, r, rollout.Action{Phase: 2, Track: "us"}); act.Phase != 1 || act.Track != "us" {
		t.Fatalf("the run names the plan's phase: %+v", act)
	}
	if vars := Vars("web", "argocd", "prod", rollout.Action{Track: "us"}, nil, nil); vars[".track.name"] != "us" {
		t.Fatalf("vars %v", vars)
	}
}

// TestResultsAreTheCurrentPhasesOfTheRollout: the kept results of the current phase's
// hooks, of this rollout only; another rollout's run of the same hook is not this one's.
func TestResultsAreTheCurrentPhasesOfTheRollout(t *testing.T) {
	st := &state.State{Rollout: &state.Rollout{Revision: "r2", Phases: []state.PhaseState{
		{Name: "dev", Hooks: map[string]state.HookRun{"pre/notify": {Status: state.HookRunning}}}}}}
	l := New(nil, Options{})
	l.results["web"] = map[string]rollout.HookResult{"web/r2/dev/pre/notify": {Status: state.HookFailed}}
	l.results["api"] = map[string]rollout.HookResult{"api/r2/dev/pre/notify": {Status: state.HookSucceeded}}
	if got := l.Results("web", st); len(got) != 1 || got["pre/notify"].Status != state.HookFailed {
		t.Fatalf("results %v", got)
	}
	if got := l.Results("other", st); len(got) != 0 {
		t.Fatalf("another rollout's: %v", got)
	}
	if got := l.Results("web", nil); got == nil || len(got) != 0 {
		t.Fatalf("no state: %v", got)
	}
	if l.Begin("web", "web/r2/dev/pre/notify") {
		t.Fatal("a run whose result waits for the ledger is started again")
	}
	if !l.Begin("web", "web/r2/dev/pre/other") || l.Begin("web", "web/r2/dev/pre/other") {
		t.Fatal("a run not running starts once")
	}
	l.done("web/r2/dev/pre/other")
	if !l.Begin("web", "web/r2/dev/pre/other") {
		t.Fatal("a run cut short (no result) is started again")
	}
}

// TestRunStartedIsTheLedgers: a job hook's Job is told apart from an earlier run's by the
// ledger's start of the run, which every agent reads alike.
func TestRunStartedIsTheLedgers(t *testing.T) {
	at := time.Unix(1700000000, 0)
	r := &state.Rollout{Phases: []state.PhaseState{{Hooks: map[string]state.HookRun{"pre/migrate": {StartedAt: at}}}}}
	for _, tc := range []struct {
		act  rollout.Action
		want time.Time
	}{
		{rollout.Action{Key: "pre/migrate", Phase: 0}, at},
		{rollout.Action{Key: "check/smoke", Phase: 0}, time.Time{}},
		{rollout.Action{Key: "pre/migrate", Phase: 3}, time.Time{}},
		{rollout.Action{Key: "pre/migrate", Phase: -1}, time.Time{}},
	} {
		if got := Started(&state.State{Rollout: r}, tc.act); !got.Equal(tc.want) {
			t.Errorf("%+v: %v, want %v", tc.act, got, tc.want)
		}
	}
}
