package render

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestAPlanCarriesTheRolloutWideMaxFailures: the agent reads the budget as parsed; a plan
// of a spec without one says nothing (as plans did before) and reads back as none; a budget
// the plan garbles is refused, not read as none.
func TestAPlanCarriesTheRolloutWideMaxFailures(t *testing.T) {
	_, cm := planOf(t, func(y string) string {
		return strings.Replace(y, "      type: phaseDeployment\n", "      type: phaseDeployment\n      maxFailures: \"5%\"\n", 1)
	})
	p, err := plan.Decode(manifest(cm), targets.NewCache(16))
	if err != nil || p.MaxFailures != (spec.Size{Kind: spec.SizePercent, Value: 5}) {
		t.Fatalf("%+v %v", p, err)
	}
	cm.Data[contract.PlanPhasesKey] = strings.Replace(cm.Data[contract.PlanPhasesKey], `"maxFailures":{"kind":2,"value":5}`, `"maxFailures":{"kind":0}`, 1)
	if _, err := plan.Decode(manifest(cm), targets.NewCache(16)); err == nil || !strings.Contains(err.Error(), "invalid maxFailures") {
		t.Fatalf("a garbled budget: %v", err)
	}
	_, cm = planOf(t, func(y string) string { return y })
	if p, err := plan.Decode(manifest(cm), targets.NewCache(16)); err != nil || p.MaxFailures.Kind != spec.SizeAll || strings.Contains(cm.Data[contract.PlanPhasesKey], `},"maxFailures"`) {
		t.Fatalf("none: %+v %v %s", p, err, cm.Data[contract.PlanPhasesKey])
	}
}
