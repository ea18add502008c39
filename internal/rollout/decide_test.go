package rollout

import (
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestNewlyAdmittedAreTheNextBatchOnly: the children the preview admits that the state
// does not, in the order the phase takes its members, capped.
func TestNewlyAdmittedAreTheNextBatchOnly(t *testing.T) {
	st := &state.State{Rollout: &state.Rollout{Status: state.RolloutProgressing, Phases: []state.PhaseState{
		{Name: "dev", Members: []string{"a"}, Admitted: []string{"a"}}, {Name: "prod", Members: []string{"d", "b", "c", "e"}}}}}
	next := st.Clone()
	next.Rollout.Phases[1].Admitted = []string{"b", "c", "d"}
	if got := newlyAdmitted(st, next, 2); !slices.Equal(got, []string{"d", "b"}) {
		t.Fatalf("got %v", got)
	}
	if got := newlyAdmitted(st, st, 8); got != nil {
		t.Fatalf("nothing to admit, nothing to warm: %v", got)
	}
}

// TestDecideRebuildsALostStateThenSteps: with no state while children exist, Decide
// rebuilds one from their revisions (judging what changes against it, not against none),
// says so in a Warning Event, and steps it; a shard missing before any state holds it.
func TestDecideRebuildsALostStateThenSteps(t *testing.T) {
	w := newWorld(threePhases()...)
	w.plan.Rollout, w.plan.Others = "web", w.st.Revisions
	w.obs.PhaseGen = 7
	st, err := Rebuilt(w.plan, nil, w.obs.Children, w.obs.PhaseGen)
	if err != nil || st == nil || st.Deployed != "r1" || st.Generation != 8 || st.ViewGeneration != 8 {
		t.Fatalf("the state the agent judges changes against: %+v %v", st, err)
	}
	if none, err := Rebuilt(w.plan, nil, nil, 0); none != nil || err != nil {
		t.Fatalf("nothing proves a lost state: %+v %v", none, err)
	}
	if none, err := Rebuilt(w.plan, w.st, w.obs.Children, 7); none != nil || err != nil {
		t.Fatalf("nothing proves a lost state: %+v %v", none, err)
	}
	w.obs.ChangedIfRebuilt, w.obs.Changed = w.obs.Changed, map[string]bool{}
	d, err := Decide(w.plan, nil, w.obs, at(0))
	if err != nil || !d.Rebuilt || d.Next == nil || d.Next.Generation <= 8 {
		t.Fatalf("rebuilt %v next %+v: %v", d.Rebuilt, d.Next, err)
	}
	if d.Next.Rollout == nil || d.Next.Rollout.Status != StatusProgressing {
		t.Fatalf("changes judged against none, not the rebuilt state: %+v", d.Next)
	}
	if !slices.ContainsFunc(d.Actions, func(a Action) bool { return a.Reason == EvStateRebuilt && a.Warning }) {
		t.Fatalf("no StateRebuilt warning: %+v", d.Actions)
	}
	held := w.obs
	held.ShardHold = "shard 1/2: parent \"web-1\" missing"
	if d, err := Decide(w.plan, nil, held, at(0)); err != nil || d.Next != nil || d.Rebuilt || len(d.Actions) > 0 {
		t.Fatalf("a held rollout without state decides nothing: %+v %v", d, err)
	}
}

// TestDecideNamesTheMovesAndTheWarms: the children a step admits and that do not run the
// revision yet are the Decision's moves; the next ones the rollout admits are its warms,
// in the order they will move — once per state generation: one the agent has warmed
// already (Observed.Warmed), or an agent that warms nothing, gets no preview.
func TestDecideNamesTheMovesAndTheWarms(t *testing.T) {
	w := newWorld(threePhases()...)
	var d Decision
	var before *state.State
	for s := 0; s < 3; s++ {
		var err error
		before = w.st
		if d, err = Decide(w.plan, before, w.obs, at(s)); err != nil {
			t.Fatal(err)
		}
		w.st = d.Next
	}
	moved := movesOf(d)
	for _, m := range d.Moves {
		if m.Revision != "r2" {
			t.Fatalf("move %+v", m)
		}
	}
	if !slices.Equal(moved, []string{"dev-1", "dev-2"}) {
		t.Fatalf("moves %v", moved)
	}
	if len(d.Warm) == 0 || d.WarmState == nil || slices.ContainsFunc(d.Warm, func(c string) bool { return slices.Contains(moved, c) }) {
		t.Fatalf("warms %v of %+v", d.Warm, d.WarmState)
	}
	for name, c := range map[string]struct {
		warmed  int64
		noWarm  bool
		preview bool
	}{
		"this generation warmed":    {d.Next.Generation, false, false},
		"an earlier one warmed":     {d.Next.Generation - 1, false, true},
		"an agent that never warms": {0, true, false},
	} {
		seen := w.obs
		seen.Warmed, seen.NoWarm = c.warmed, c.noWarm
		again, err := Decide(w.plan, before, seen, at(2))
		if err != nil || again.Next.Generation != d.Next.Generation || !slices.Equal(movesOf(again), moved) {
			t.Fatalf("%s: not the same decision: %+v %v", name, again, err)
		}
		var want []string // the same warms when previewed, none otherwise
		if c.preview {
			want = d.Warm
		}
		if previewed := again.WarmState != nil; previewed != c.preview || !slices.Equal(again.Warm, want) {
			t.Fatalf("%s: warms %v, previewed %v", name, again.Warm, previewed)
		}
	}
}

// movesOf are the children d moves.
func movesOf(d Decision) []string {
	var out []string
	for _, m := range d.Moves {
		out = append(out, m.Child)
	}
	return out
}

// TestAnUnselectedChildProvesNoLostState: a child the parent renders because no step
// selects it (automated sync off) is no rollout's: with no state, it alone is no evidence of
// a lost one, and no rebuilt state takes it in.
func TestAnUnselectedChildProvesNoLostState(t *testing.T) {
	w := newWorld(threePhases()...)
	w.plan.Others = w.st.Revisions
	w.obs.Children = map[string]Observation{"sandbox-1": {Revision: "r2", Unselected: true}}
	d, err := Decide(w.plan, nil, w.obs, at(0))
	if err != nil || d.Rebuilt || d.Next == nil || slices.Contains(d.Next.Children, "sandbox-1") {
		t.Fatalf("%+v %v", d, err)
	}
	w.obs.Children["dev-1"] = Observation{Revision: "r1"}
	if d, err := Decide(w.plan, nil, w.obs, at(0)); err != nil || !d.Rebuilt || slices.Contains(d.Next.Children, "sandbox-1") {
		t.Fatalf("rebuilt from dev-1 alone: %+v %v", d.Next, err)
	}
}
