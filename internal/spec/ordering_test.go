package spec

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// withOrdering is the base spec with lines added to its canary phase.
func withOrdering(lines string) []byte {
	return []byte(strings.Replace(string(specWith(`'true'`, "1")), "        percentage: 10\n", "        percentage: 10\n"+lines, 1))
}

func TestParseReadsOrderAndSpread(t *testing.T) {
	s, err := Parse("spec.yaml", withOrdering("        order: int(labels.weight)\n        spread: labels.region\n"), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if o := s.Phases[0].Ordering; o.Order != "int(labels.weight)" || o.Spread != "labels.region" || !o.Compiled() {
		t.Fatalf("%+v", o)
	}
	if !s.Phases[1].Ordering.IsZero() {
		t.Fatalf("a phase without them keeps name order: %+v", s.Phases[1].Ordering)
	}
	order, spread, err := s.Phases[0].Ordering.Keys(targets.Subject{Name: "a", Labels: map[string]string{"weight": "3", "region": "eu"}})
	if err != nil || order.Num != 3 || spread.Str != "eu" {
		t.Fatalf("%+v %+v %v", order, spread, err)
	}
}

// TestABadOrderingNamesTheField: validate and the sidecar parse alike, so both refuse these
// with the file, line and field.
func TestABadOrderingNamesTheField(t *testing.T) {
	cases := map[string]struct{ lines, want string }{
		"order does not compile":    {"        order: 'labels.region +'\n", "spec.yaml:13: spec.generators[0].deploymentStrategy.phases[0].order: unexpected token"},
		"order is a boolean":        {"        order: 'name == \"a\"'\n", "phases[0].order: expression gives bool, not a string or a number (fix: give it a string or a number"},
		"spread names no field":     {"        spread: labels.region.x\n", "phases[0].spread:"},
		"spread is an unknown name": {"        spread: region\n", "phases[0].spread: unknown name region"},
		"order is empty":            {"        order: ''\n", "phases[0].order: is empty"},
		"spread is a map":           {"        spread: labels\n", "phases[0].spread: expression gives map[string]string"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("spec.yaml", withOrdering(c.lines), targets.NewCache(8))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestOrderingOnStepsAndComposedPhases(t *testing.T) {
	steps := `type: RollingSync
rollingSync:
  steps:
  - matchExpressions: [{key: env, operator: In, values: [dev]}]
    spread: labels.region
  - matchExpressions: [{key: env, operator: In, values: [prod]}]`
	phases := `- name: canary
  targets: [{matchExpressions: [{key: canary, operator: Exists}]}]
  order: name
- name: rest
  targets: [{matchExpressions: [{key: env, operator: Exists}]}]`
	s, err := Parse("c.yaml", []byte(composed(steps, phases)), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]targets.Ordering{}
	for _, p := range s.Phases {
		got[p.Name] = p.Ordering
	}
	if got["canary-step1"].Order != "name" || got["canary-step1"].Spread != "" || got["rest-step1"].Spread != "labels.region" ||
		!got["rest-step2"].IsZero() || got["canary-step2"].Order != "name" {
		t.Fatalf("the phase's order and spread, else its step's: %+v", got)
	}
	for name, o := range got {
		if !o.Compiled() {
			t.Fatalf("%s not compiled", name)
		}
	}
	bad := strings.Replace(steps, "spread: labels.region", "spread: 'labels.region +'", 1)
	if _, err := Parse("c.yaml", []byte(composed(bad, phases)), targets.NewCache(8)); err == nil || !strings.Contains(err.Error(), "spec.strategy.rollingSync.steps[0].spread: unexpected token") {
		t.Fatalf("a step's spread is checked where it is written: %v", err)
	}
}
