package spec

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

func TestParseReadsTheRolloutWideMaxFailures(t *testing.T) {
	at := func(v string) []byte {
		return []byte(strings.Replace(string(specWith("'true'", "1")), "      type: phaseDeployment\n", "      type: phaseDeployment\n      maxFailures: "+v+"\n", 1))
	}
	for v, want := range map[string]Size{
		"3": {Kind: SizeCount, Value: 3}, "0": {Kind: SizeCount}, `"5%"`: {Kind: SizePercent, Value: 5}, `"100%"`: {Kind: SizePercent, Value: 100},
	} {
		s, err := Parse("spec.yaml", at(v), targets.NewCache(8))
		if err != nil || s.MaxFailures != want {
			t.Errorf("%s: %+v %v", v, s, err)
		}
	}
	if s, err := Parse("spec.yaml", specWith("'true'", "1"), targets.NewCache(8)); err != nil || s.MaxFailures.Kind != SizeAll {
		t.Fatalf("none set: %+v %v", s, err)
	}
	for v, want := range map[string]string{
		"-1":        `deploymentStrategy.maxFailures: invalid maxFailures "-1"`,
		`"101%"`:    `invalid percentage "101%"`,
		"lots":      `invalid maxFailures "lots"`,
		"[1]":       "must be an integer or a percentage",
		`"ten%"`:    `invalid percentage "ten%"`,
		`"3"`:       "", // a quoted number is a number, as maxUpdate reads it
		`"  3  "`:   "",
		"3.5":       `invalid maxFailures "3.5"`,
		`"5 %"`:     `invalid percentage "5 %"`,
		"{n: 1}":    "must be an integer or a percentage",
		"99999999":  "",
		`"0%"`:      "",
		"1e3":       `invalid maxFailures "1e3"`,
		"0x10":      `invalid maxFailures "0x10"`,
		`"%"`:       `invalid percentage "%"`,
		"true":      `invalid maxFailures "true"`,
		`"-5%"`:     `invalid percentage "-5%"`,
		`"50%%"`:    `invalid percentage "50%%"`,
		"null":      `invalid maxFailures "null"`,
		`"12%"`:     "",
		"7":         "",
		`"3 "`:      "",
		"01":        "",
		`"+2"`:      "",
		"~":         `invalid maxFailures "~"`,
		`"2%"`:      "",
		`"1000%"`:   `invalid percentage "1000%"`,
		`"100.0%"`:  `invalid percentage "100.0%"`,
		`"fifty%"`:  `invalid percentage "fifty%"`,
		`"3 items"`: `invalid maxFailures "3 items"`,
	} {
		_, err := Parse("spec.yaml", at(v), targets.NewCache(8))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", v, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "fix: write a number of clusters")):
			t.Errorf("%s: got %v, want %q", v, err, want)
		}
	}
}

func TestTheRolloutWideMaxFailuresInSpecStrategyAndComposed(t *testing.T) {
	rs := `type: RollingSync
maxFailures: "10%"
rollingSync:
  steps:
  - matchExpressions: [{key: env, operator: In, values: [dev]}]`
	phases := "- name: all\n  targets: [{matchExpressions: [{key: env, operator: Exists}]}]"
	s, err := Parse("c.yaml", []byte(composed(rs, phases)), targets.NewCache(8))
	if err != nil || s.MaxFailures != (Size{Kind: SizePercent, Value: 10}) {
		t.Fatalf("from spec.strategy: %+v %v", s, err)
	}
	both := strings.Replace(composed(rs, phases), "      type: phaseDeployment\n", "      type: phaseDeployment\n      maxFailures: 2\n", 1)
	if _, err := Parse("c.yaml", []byte(both), targets.NewCache(8)); err == nil || !strings.Contains(err.Error(), "spec.strategy.maxFailures: is also set in") {
		t.Fatalf("set in both: %v", err)
	}
}

func TestBudget(t *testing.T) {
	for _, c := range []struct {
		b    Size
		n    int
		want int
	}{
		{Size{Kind: SizeCount, Value: 3}, 100, 3},
		{Size{Kind: SizePercent, Value: 5}, 10, 0},
		{Size{Kind: SizePercent, Value: 5}, 100, 5},
		{Size{Kind: SizePercent, Value: 100}, 7, 7},
		{Size{}, 7, -1},
	} {
		if got := Budget(c.b, c.n); got != c.want {
			t.Errorf("%+v of %d: %d, want %d", c.b, c.n, got, c.want)
		}
	}
}
