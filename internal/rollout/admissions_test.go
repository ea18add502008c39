package rollout

import (
	"fmt"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestAdmissionsNameOnlyTheNewMembersBatchByBatch: a 10% canary over 8 prod clusters
// admits one, the next phase (every prod cluster) the other seven, not all eight again; a
// RollingSync step of maxUpdate 2 admits its members two by two.
func TestAdmissionsNameOnlyTheNewMembersBatchByBatch(t *testing.T) {
	var fleet []targets.Child
	for i := 1; i <= 8; i++ {
		fleet = append(fleet, subject(fmt.Sprintf("prod-%d", i), "prod"))
	}
	p := plan.Plan{Revision: "r", Phases: []spec.Phase{envPhase("canary", "prod", pct(10), false), envPhase("rest", "prod", spec.Size{}, false)}}
	phases, _, err := Lineup(p, fleet)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(Admissions(p, phases)); got != "[[[prod-1]] [[prod-2 prod-3 prod-4 prod-5 prod-6 prod-7 prod-8]]]" {
		t.Fatalf("admissions %s", got)
	}
	step := envPhase("step-1", "prod", spec.Size{Kind: spec.SizeCount, Value: 3}, true)
	p = plan.Plan{Revision: "r", Phases: []spec.Phase{step}}
	if phases, _, err = Lineup(p, fleet); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(Admissions(p, phases)); got != "[[[prod-1 prod-2 prod-3] [prod-4 prod-5 prod-6] [prod-7 prod-8]]]" {
		t.Fatalf("a step's batches %s", got)
	}
}
