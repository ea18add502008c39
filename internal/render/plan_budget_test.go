package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
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
	p, err := DecodePlan(cm, targets.NewCache(16))
	if err != nil || p.MaxFailures != (spec.Size{Kind: spec.SizePercent, Value: 5}) {
		t.Fatalf("%+v %v", p, err)
	}
	cm.Data[contract.PlanPhasesKey] = strings.Replace(cm.Data[contract.PlanPhasesKey], `"maxFailures":{"kind":2,"value":5}`, `"maxFailures":{"kind":0}`, 1)
	if _, err := DecodePlan(cm, targets.NewCache(16)); err == nil || !strings.Contains(err.Error(), "invalid maxFailures") {
		t.Fatalf("a garbled budget: %v", err)
	}
	_, cm = planOf(t, func(y string) string { return y })
	if p, err := DecodePlan(cm, targets.NewCache(16)); err != nil || p.MaxFailures.Kind != spec.SizeAll || strings.Contains(cm.Data[contract.PlanPhasesKey], `},"maxFailures"`) {
		t.Fatalf("none: %+v %v %s", p, err, cm.Data[contract.PlanPhasesKey])
	}
}

// TestWhatIsNotPhasedIsBounded: 10,000 children deploying an image by tag put at most
// maxUnphasedBytes in the plan, with one entry counting the rest.
func TestWhatIsNotPhasedIsBounded(t *testing.T) {
	m := map[string]string{}
	for i := range 10000 {
		m[fmt.Sprintf("web-cluster-%05d", i)] = "apps/web/kustomization.yaml: image web:1.2 (a tag can move; pin a digest)" + strings.Repeat("x", i%1000)
	}
	got := boundUnphased(m)
	size := 0
	for k, v := range got {
		size += len(k) + len(v)
		if len(v) > maxUnphasedEntry+len("…") && k != UnphasedMore {
			t.Fatalf("%s: %d bytes", k, len(v))
		}
	}
	if size > maxUnphasedBytes+200 || !strings.Contains(got[UnphasedMore], "more children not phased") {
		t.Fatalf("%d bytes in %d entries, more: %q", size, len(got), got[UnphasedMore])
	}
}
