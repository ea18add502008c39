package rollout

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// canariesOf lines up a 10% canary phase with order: shuffle (then the rest) over twenty
// prod clusters for revision rev, and returns the canaries.
func canariesOf(t *testing.T, rev string) []string {
	t.Helper()
	canary, rest := envPhase("canary", "prod", pct(10), false), envPhase("rest", "prod", spec.Size{}, false)
	canary.Ordering = targets.Ordering{Order: targets.Shuffle}
	if err := canary.Ordering.Compile(nil); err != nil {
		t.Fatal(err)
	}
	var fleet []targets.Child
	for i := 1; i <= 20; i++ {
		c := subject(fmt.Sprintf("prod-%02d", i), "prod")
		c.Seed = rev // what render.Subjects gives every subject of a revision
		fleet = append(fleet, c)
	}
	phases, _, err := Lineup(plan.Plan{Revision: rev, Phases: []spec.Phase{canary, rest}}, fleet)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Clone(phases[0].Members[:2]) // the canaries: 10% of 20, in line-up order
}

// TestAShuffleIsTheSameForARevisionAndOtherForAnother: order: shuffle picks the same
// canaries at every line-up of one revision, and other canaries for other revisions
// (not simply name order), each cluster a canary for some revision.
func TestAShuffleIsTheSameForARevisionAndOtherForAnother(t *testing.T) {
	first := canariesOf(t, "rev-a")
	if again := canariesOf(t, "rev-a"); !slices.Equal(first, again) {
		t.Fatalf("one revision, two orders: %v then %v", first, again)
	}
	seen, differ := map[string]bool{}, 0
	for i := range 40 {
		c := canariesOf(t, fmt.Sprintf("rev-%d", i))
		if !slices.Equal(c, first) {
			differ++
		}
		for _, k := range c {
			seen[k] = true
		}
	}
	if differ < 35 || len(seen) < 15 {
		t.Fatalf("other revisions should pick other canaries: %d of 40 differ, %d clusters ever picked", differ, len(seen))
	}
	if slices.Equal(first, []string{"prod-01", "prod-02"}) && slices.Equal(canariesOf(t, "rev-b"), first) {
		t.Fatal("a shuffle that keeps name order")
	}
}
