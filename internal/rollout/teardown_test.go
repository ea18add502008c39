package rollout

import (
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestTeardownGoesInTheDeletionOrder: with the parent deleted, Reverse deletes the latest
// phase's live children first (prod-2, which the last rollout left on r1, by the phase that
// selects it) and the next phase only once they are gone — a child still being deleted holds
// the next group back, as after an agent restart; AllAtOnce deletes every live child at once.
func TestTeardownGoesInTheDeletionOrder(t *testing.T) {
	all := []string{"dev-1", "dev-2", "prod-1", "prod-2", "staging-1", "staging-2"}
	cases := map[string]struct {
		order string
		steps [][]string // what Teardown returns as the live children shrink
	}{
		"Reverse (phaseDeployment)": {"", [][]string{{"prod-1", "prod-2"}, {"staging-1", "staging-2"}, {"dev-1", "dev-2"}}},
		"Reverse":                   {spec.DeletionReverse, [][]string{{"prod-1", "prod-2"}, {"staging-1", "staging-2"}, {"dev-1", "dev-2"}}},
		"AllAtOnce":                 {spec.DeletionAllAtOnce, [][]string{all}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWorld(threePhases()...)
			w.plan.DeletionOrder = c.order
			w.finish(t, 0, "r2")
			live := slices.Clone(all)
			for i, want := range c.steps {
				for range 2 { // the same answer while they are still there (being deleted)
					del, done := Teardown(w.st, w.plan, w.obs.Subjects, live)
					if done || !slices.Equal(del, want) {
						t.Fatalf("step %d: delete %v (done %v), want %v", i, del, done, want)
					}
				}
				live = slices.DeleteFunc(live, func(c string) bool { return slices.Contains(want, c) })
			}
			if del, done := Teardown(w.st, w.plan, w.obs.Subjects, live); !done || len(del) != 0 {
				t.Fatalf("all gone: delete %v, done %v", del, done)
			}
		})
	}
}

func TestTeardownWithoutAStateDeletesByThePhaseThatSelects(t *testing.T) {
	w := newWorld(threePhases()...)
	del, done := Teardown(nil, w.plan, w.obs.Subjects, []string{"dev-1", "staging-1", "orphan"})
	if done || !slices.Equal(del, []string{"orphan"}) {
		t.Fatalf("a child no phase selects goes first: %v", del)
	}
	del, _ = Teardown(nil, w.plan, w.obs.Subjects, []string{"dev-1", "staging-1"})
	if !slices.Equal(del, []string{"staging-1"}) {
		t.Fatalf("then the latest phase: %v", del)
	}
}

// TestTornDownForgetsEveryChildOnce: once every child is gone the state deploys nothing,
// a running rollout is abandoned, the history says why — and a second call writes nothing.
func TestTornDownForgetsEveryChildOnce(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0) // a rollout runs: dev admitted
	next, acts := TornDown(w.st, "with the parent parent", at(50))
	if next == w.st || len(next.Children) != 0 || next.Pinned != nil || next.Rollout.Status != StatusAbandoned {
		t.Fatalf("children %v pinned %v rollout %v", next.Children, next.Pinned, next.Rollout.Status)
	}
	if next.Generation != w.st.Generation+1 || next.ViewGeneration != next.Generation || !hasEvent(acts, EvRolloutRemoved) {
		t.Fatalf("generation %d view %d events %v", next.Generation, next.ViewGeneration, events(acts))
	}
	if len(w.st.Children) == 0 {
		t.Fatal("TornDown changed the state it was given")
	}
	if again, acts := TornDown(next, "with the parent parent", at(60)); again != next || len(acts) != 0 {
		t.Fatal("a torn-down state must not be written again")
	}
	if none, _ := TornDown((*state.State)(nil), "with the parent parent", at(60)); none != nil {
		t.Fatal("no state: nothing to write")
	}
}
