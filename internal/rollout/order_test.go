package rollout

import (
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestDeletionOrderDecidesHowLeavingClustersGo: Reverse (and a plan that names no order,
// phaseDeployment) removes the latest phase's group first; AllAtOnce removes every leaving
// child in one group.
func TestDeletionOrderDecidesHowLeavingClustersGo(t *testing.T) {
	cases := map[string]struct {
		order        string
		first, after []string
		thenRemoving []string
	}{
		"phaseDeployment (no order): reverse": {"", []string{"prod-1"}, []string{"dev-2"}, []string{"dev-2"}},
		"Reverse":                             {spec.DeletionReverse, []string{"prod-1"}, []string{"dev-2"}, []string{"dev-2"}},
		"AllAtOnce":                           {spec.DeletionAllAtOnce, []string{"dev-2", "prod-1"}, nil, nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWorld(threePhases()...)
			w.plan.DeletionOrder = c.order
			s := w.finish(t, 0, "r2")
			w.leave("dev-2")
			w.leave("prod-1")
			w.step(t, s+10)
			if !slices.Equal(w.st.Removing, c.first) || !slices.Equal(w.st.Leaving, c.after) {
				t.Fatalf("removing %v leaving %v, want %v then %v", w.st.Removing, w.st.Leaving, c.first, c.after)
			}
			delete(w.obs.Children, "prod-1")
			if c.order == spec.DeletionAllAtOnce {
				delete(w.obs.Children, "dev-2")
			}
			w.step(t, s+20)
			if !slices.Equal(w.st.Removing, c.thenRemoving) {
				t.Fatalf("then removing %v, want %v", w.st.Removing, c.thenRemoving)
			}
		})
	}
}
