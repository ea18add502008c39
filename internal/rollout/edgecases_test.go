package rollout

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// roundTrip is what the agent does between passes: the state is written and read back.
func roundTrip(t *testing.T, st *state.State) *state.State {
	t.Helper()
	b, err := state.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	out, err := state.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// a per-cluster failure hook with no failed cluster (an abort) makes gate create an
// empty ledger map on a phase whose ledger was nil: nil vs {} differs for state.Equal, the
// codec drops {} again, so every pass writes a new generation.
func TestPerClusterFailureHookWithNoFailedClusterWritesEveryPass(t *testing.T) {
	phases := threePhases()
	phases[1].WaitDuration = 0
	phases[2].FailureHooks = []spec.Hook{httpHook("incident", "https://x/{{name}}", "fail")}
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.syncs(15, "r2", "staging-1", "staging-2")
	w.step(t, 20)
	delete(w.obs.Children, "prod-1") // prod walks
	w.step(t, 21)
	w.edit(map[string]string{"abort": "wrong image", "by": "erin"})
	w.step(t, 22)
	w.edit(map[string]string{})
	if w.st.Rollout.Status != StatusStopped || w.st.Rollout.Phases[2].FailedAt.IsZero() {
		t.Fatalf("aborted: %s", w.st.Rollout.Status)
	}
	w.st = roundTrip(t, w.st)
	gen := w.st.Generation
	for s := 30; s < 60; s += 10 {
		w.step(t, s)
		w.st = roundTrip(t, w.st)
	}
	if w.st.Generation != gen {
		t.Fatalf("a stopped rollout with nothing to do was written %d more times", w.st.Generation-gen)
	}
}

// a per-cluster failure hook over the agent's limits is "held" on the first pass
// (an Errored entry keyed without a cluster); on the next pass ranAny sees that entry and
// the hook is started for each failed cluster anyway.
func TestAHeldPerClusterFailureHookIsStartedOnTheNextPass(t *testing.T) {
	w := failingWorld(t, "stop")
	w.plan.Phases[2].FailureHooks = []spec.Hook{httpHook("incident", "https://x/{{name}}", "fail")}
	w.plan.Phases[2].FailureHooks[0].Timeout = time.Hour // over the http kind's limit
	if acts := w.step(t, 30); slices.Contains(runs(acts), "fail/incident/prod-1") {
		t.Fatalf("held on the first pass: %v", runs(acts))
	}
	if acts := w.step(t, 31); slices.Contains(runs(acts), "fail/incident/prod-1") {
		t.Fatalf("a hook over the limits is started on the next pass: %v", runs(acts))
	}
}

// a post-delete hook of a child that leaves, comes back and leaves again runs only the
// first time: startAfterDelete skips a ledger key it has seen, and the ledger keeps it.
func TestAChildThatLeavesTwiceRunsItsPostDeleteHookTwice(t *testing.T) {
	w, s := postDeleteWorld(t)
	w.leave("prod-1")
	w.step(t, s+10)
	delete(w.obs.Children, "prod-1")
	w.step(t, s+20)
	w.ends(s+21, state.HookSucceeded, "postdelete/deregister/prod-1")
	w.step(t, s+22)
	w.obs.Hooks = nil
	if w.st.AfterDelete["postdelete/deregister/prod-1"].Status != state.HookSucceeded {
		t.Fatalf("first run recorded: %+v", w.st.AfterDelete)
	}
	// it comes back and is deployed again
	w.join("prod-1", "prod")
	w.step(t, s+50)
	s = w.finish(t, s+100, "r2")
	w.obs.Children["prod-1"] = Observation{Revision: "r2", SpecCompared: true, SyncStatus: "Synced", ReconciledAt: at(s), Health: "Healthy", Cluster: "cluster-prod-1"}
	w.obs.Changed["prod-1"] = false
	w.step(t, s+1)
	if !slices.Contains(w.st.Children, "prod-1") {
		t.Fatalf("prod-1 deployed again: %v %+v", w.st.Children, w.st.Rollout)
	}
	// and leaves again
	w.leave("prod-1")
	w.step(t, s+10)
	delete(w.obs.Children, "prod-1")
	acts := w.step(t, s+20)
	if !slices.Contains(runs(acts), "postdelete/deregister/prod-1") {
		t.Fatalf("its second removal runs no post-delete hook: %v (ledger %+v)", runs(acts), w.st.AfterDelete)
	}
}

// a phase whose children do not return by its deadline during a rollback over several
// phases fails while another phase is the rollout's current one: its failure hooks run in
// its ledger (Phase 1) but the agent hands back results only for r.Phase (hookrun.Results)
// and keeps them only for r.Current() (Settle): the run never ends in the ledger.
func TestAFailureHookOfAPhaseThatIsNotCurrent(t *testing.T) {
	w := failingWorld(t, "rollback")
	w.plan.Phases[1].FailureHooks = []spec.Hook{httpHook("staging-incident", "https://x/s", "fail")}
	w.plan.OnFailure = spec.FailureHooks{}
	w.step(t, 30) // prod fails, rollback starts: prod returns
	w.syncs(35, "r1", "prod-1", "prod-2")
	w.step(t, 40) // prod returned; staging returns
	w.step(t, 41)
	// staging never returns: past its deadline
	acts := w.step(t, 41+int(DefaultProgressDeadline/time.Second)+5)
	r := w.st.Rollout
	for _, a := range acts {
		if a.Kind == ActRunHook && a.Key == "fail/staging-incident" {
			t.Fatalf("fail hook asked for in phase %d while r.Phase=%d, Current()=%v (status %s): the agent never hands its result back", a.Phase, r.Phase, r.Current(), r.Status)
		}
	}
	t.Logf("status %s phases %+v", r.Status, r.Phases[1].Status)
}

// After a replan, the first rollout's children are carried into the new lineup (not pinned
// at the revision): a rollback of the rollout that took over returns them too.
func TestARollbackAfterAReplanLeavesTheFirstPhasesOnTheRevision(t *testing.T) {
	w := downgraded(t)
	w.step(t, 20)
	w.syncs(25, "r2", "staging-1", "staging-2")
	for _, c := range []string{"dev-1", "dev-2", "staging-1", "staging-2"} {
		w.obs.Changed[c] = false
	}
	w.step(t, 30)
	w.syncs(35, "r2", "prod-1", "prod-2")
	w.degrade("prod-1")
	w.step(t, 40)
	w.edit(map[string]string{"rollback": "bad", "by": "erin"})
	w.step(t, 41)
	w.edit(map[string]string{})
	for s := 50; s < 300 && w.st.Rollout.Status == StatusRollingBack; s += 10 {
		w.syncs(s, "r1", "prod-1", "prod-2", "dev-1", "dev-2", "staging-1", "staging-2")
		w.step(t, s+5)
	}
	if w.st.Rollout.Status != StatusRolledBack {
		t.Fatalf("rolled back: %s %q", w.st.Rollout.Status, w.st.Rollout.Reason)
	}
	if len(w.st.Pinned) != 0 {
		t.Fatalf("rolled back, yet pinned at the revision rolled back: %v", w.st.Pinned)
	}
}

// a removed spec's rollout is dismantled again on every pass after its teardown (the
// state keeps RemovedRevision); with more than MaxAfterDelete per-cluster runs, each pass
// trims ended entries that afterDismantle then starts again (the abandoned rollout's
// phases still name them as admitted): post-delete hooks run again, for ever.
func TestARemovedSpecsPostDeleteHooksRunAgainOnceTrimmed(t *testing.T) {
	n := state.MaxAfterDelete + 10
	var kids []string
	for i := range n {
		kids = append(kids, fmt.Sprintf("c-%03d", i))
	}
	st := &state.State{Schema: state.Schema, Generation: 1, Deployed: "r1", Children: slices.Clone(kids),
		Rollout: &state.Rollout{Revision: "r2", Status: StatusProgressing, Phases: []state.PhaseState{{Name: "all", Status: PhaseAdmitting, Members: kids, Admitted: kids}}}}
	p := newWorld(threePhases()...).plan
	p.PostDeleteHooks = []spec.Hook{httpHook("deregister", "https://dns.example.com/{{name}}", "fail")}
	o := Observed{Children: map[string]Observation{}, Dismantle: &Dismantle{How: "its spec is gone from git", Removal: true}}
	d := dismantle(p, st, o, at(0))
	if len(runs(d.Actions)) != n {
		t.Fatalf("first pass: %d runs", len(runs(d.Actions)))
	}
	st = d.Next
	o.Hooks = map[string]HookResult{}
	for _, k := range runs(d.Actions) {
		o.Hooks[k] = HookResult{Status: state.HookSucceeded, Attempts: 1, FinishedAt: at(1)}
	}
	st = dismantle(p, st, o, at(2)).Next // recorded, torn down
	o.Hooks = nil
	total := 0
	for s := 3; s < 8; s++ {
		d = dismantle(p, st, o, at(s))
		st = d.Next
		total += len(runs(d.Actions))
		o.Hooks = map[string]HookResult{}
		for _, k := range runs(d.Actions) {
			o.Hooks[k] = HookResult{Status: state.HookSucceeded, Attempts: 1, FinishedAt: at(s)}
		}
	}
	if total != 0 {
		t.Fatalf("after the teardown, %d post-delete runs were started again", total)
	}
}

// A person's resume of the engine's pause runs the Inconclusive check again, never a
// failure hook that ended Inconclusive: it ran once for its cause.
func TestAResumeRerunsInconclusiveChecksOnly(t *testing.T) {
	st := &state.State{Rollout: &state.Rollout{Status: StatusProgressing, Phases: []state.PhaseState{{Name: "prod", Hooks: map[string]state.HookRun{
		"check/latency":  {Kind: KindCheck, Name: "latency", Status: state.HookInconclusive},
		"fail/incident":  {Kind: KindFail, Name: "incident", Status: state.HookInconclusive},
		"stop/page":      {Kind: KindStop, Name: "page", Status: state.HookInconclusive},
		"check/error-rt": {Kind: KindCheck, Name: "error-rt", Status: state.HookSucceeded},
	}}}}}
	rerunInconclusive(st, &state.Pause{Check: "check/latency"})
	got := slices.Sorted(maps.Keys(st.Rollout.Phases[0].Hooks))
	if fmt.Sprint(got) != "[check/error-rt fail/incident stop/page]" {
		t.Fatalf("kept %v", got)
	}
}

// A phase added to the plan of a split rollout is not silently ignored: the phases no
// longer line up, and the rollout replans as an unsplit one does.
func TestAPhaseAddedAfterTheSplitReplans(t *testing.T) {
	w := trackWorld(t, "stop")
	w.pastTheSplit(t)
	extra := envPhase("soak", "prod", spec.Size{}, false)
	w.plan.Phases = append(w.plan.Phases, extra)
	acts := w.step(t, 21)
	if !slices.ContainsFunc(acts, func(a Action) bool { return a.Reason == EvRolloutReplanned }) {
		t.Fatalf("the added phase is seen: %v", acts)
	}
}
