package render

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestAComposedPlanReadsBackAsParsed: the phases of a spec composing spec.strategy steps with
// a generator's phases — their step targets, throttle and gate — reach the agent as parsed.
func TestAComposedPlanReadsBackAsParsed(t *testing.T) {
	text, err := os.ReadFile("../spec/testdata/compose/000-coexist.yaml")
	if err != nil {
		t.Fatal(err)
	}
	yaml := strings.Replace(string(text), `          values: ["dev"]`, "          values: [\"dev\"]\n        maxUpdate: 2\n      - maxUpdate: 0", 1)
	s, cm := planFrom(t, "coexist.yaml", yaml)
	p, err := plan.Decode(manifest(cm), targets.NewCache(16))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.PhaseNames(), ",") != "canary-step1,rest-step1,canary-step2,rest-step2" {
		t.Fatalf("phases %v", p.PhaseNames())
	}
	for i, ph := range p.Phases {
		want := s.Phases[i]
		if ph.Size != want.Size || ph.Throttle != want.Throttle || ph.WaitDuration != want.WaitDuration || len(ph.Targets) != len(want.Targets) {
			t.Fatalf("phase %s: got %+v, want %+v", ph.Name, ph, want)
		}
	}
	if p.Phases[0].Throttle != (spec.Size{Kind: spec.SizeCount, Value: 2}) || !p.Phases[2].Size.Gate || p.Phases[3].Size.Gate {
		t.Fatalf("throttle of step 1, gate of step 2: %+v", p.Phases)
	}
	prodApp := targets.Subject{Name: "prod-1", Labels: map[string]string{"env": "prod"}, AppLabels: map[string]string{"env": "prod"}}
	devApp := targets.Subject{Name: "dev-1", Labels: map[string]string{"env": "dev"}, AppLabels: map[string]string{"env": "dev"}}
	for i, wantDev := range []bool{true, false} { // rest-step1 takes dev, rest-step2 the rest
		ph := p.Phases[2*i+1]
		d, _ := ph.Targets[0].Matches(devApp, ph.MatchAppLabels)
		pr, _ := ph.Targets[0].Matches(prodApp, ph.MatchAppLabels)
		if d != wantDev || pr == wantDev {
			t.Fatalf("%s: dev %v prod %v", ph.Name, d, pr)
		}
	}
	var doc struct {
		Phases []map[string]any `json:"phases"`
	}
	if err := json.Unmarshal([]byte(cm.Data[contract.PlanPhasesKey]), &doc); err != nil || len(doc.Phases) != 4 {
		t.Fatalf("%v %v", err, doc)
	}
	if _, ok := doc.Phases[1]["throttle"]; !ok {
		t.Fatalf("the plan says the throttle: %v", doc.Phases[1])
	}
	if _, ok := doc.Phases[3]["throttle"]; ok {
		t.Fatalf("a phase without a throttle says none, as plans did before: %v", doc.Phases[3])
	}
}
