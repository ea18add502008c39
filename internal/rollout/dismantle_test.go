package rollout

import (
	"maps"
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestDecideDismantlesInTheDeletionOrderThenReleases: a deleted parent's children go
// through Decide group by group (a hold, the parent's operation or unplaced children wait),
// then the state deploys nothing and the parent is released; a removed spec's pause holds
// its removal, and its end has the parent re-render instead.
func TestDecideDismantlesInTheDeletionOrderThenReleases(t *testing.T) {
	w := newWorld(threePhases()...)
	w.finish(t, 0, "r2")
	w.plan.Rollout, w.plan.Parent = "web", "web-parent"
	o := Observed{Children: maps.Clone(w.obs.Children), Subjects: w.obs.Subjects, Dismantle: &Dismantle{How: "with the parent web-parent"}}
	decide := func(o Observed) Decision {
		t.Helper()
		d, err := Decide(w.plan, w.st, o, at(100))
		if err != nil || !d.Dismantling {
			t.Fatalf("%+v %v", d, err)
		}
		return d
	}
	for _, wait := range []func(*Observed){
		func(o *Observed) {
			o.Dismantle = &Dismantle{How: o.Dismantle.How, Hold: "shard parents web-1 still there"}
		},
		func(o *Observed) { o.ParentBusy = true },
		func(o *Observed) { o.SubjectsMissing, o.Subjects = true, nil; w.st.Rollout = nil },
	} {
		held, st := o, w.st
		wait(&held)
		if d := decide(held); len(d.Delete) > 0 || d.Release || d.Next != w.st || !slices.ContainsFunc(d.Actions, func(a Action) bool { return a.Kind == ActRequeue }) {
			t.Fatalf("a held removal deletes nothing and comes back: %+v", d)
		}
		w.st = st
	}
	for _, want := range [][]string{{"prod-1", "prod-2"}, {"staging-1", "staging-2"}, {"dev-1", "dev-2"}} {
		d := decide(o)
		if !slices.Equal(d.Delete, want) || d.DeleteWhy != "the parent is deleted" || d.Release {
			t.Fatalf("delete %v (%s), want %v", d.Delete, d.DeleteWhy, want)
		}
		for _, c := range want {
			delete(o.Children, c)
		}
	}
	d := decide(o)
	if !d.Release || d.SetPhaseGen || len(d.Next.Children) != 0 || d.Next.Generation <= w.st.Generation {
		t.Fatalf("the last pass records the teardown and releases the parent: %+v", d)
	}
	o.Dismantle = &Dismantle{How: "its spec is gone from git", Removal: true}
	paused := w.st.Clone()
	paused.Paused = &state.Pause{}
	if d, _ := Decide(w.plan, paused, o, at(100)); d.Next != paused || d.Release || len(d.Actions) > 0 {
		t.Fatalf("a pause holds a removal: %+v", d)
	}
	o.Controls = &control.Controls{Fleet: &control.FleetStop{}}
	if d, _ := Decide(w.plan, w.st, o, at(100)); d.Next != w.st || len(d.Actions) > 0 {
		t.Fatalf("the fleet-wide stop holds a removal: %+v", d)
	}
	o.Controls = nil
	if d := decide(o); d.Release || !d.SetPhaseGen || len(d.Next.Children) != 0 {
		t.Fatalf("a removed spec's last pass has the parent re-render: %+v", d)
	}
}
