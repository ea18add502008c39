package targets

import (
	"strings"
	"testing"
)

var prod = Subject{Name: "prod-1", Server: "https://10.0.0.1", Labels: map[string]string{"env": "prod", "region": "eu"},
	Annotations: map[string]string{"team": "payments"}, Values: map[string]string{"tier": "gold"}, AppLabels: map[string]string{"envLabel": "env-prod"}}

func TestTargetsMatchAsTheSeedsSay(t *testing.T) {
	cases := []struct {
		name      string
		target    Target
		appLabels bool
		want      bool
	}{
		{"an explicit cluster name", Target{Clusters: []string{"dev-1", "prod-1"}}, false, true},
		{"another cluster name", Target{Clusters: []string{"dev-1"}}, false, false},
		{"values match generator values", Target{Values: map[string]string{"tier": "gold"}}, false, true},
		{"values fall back to cluster labels", Target{Values: map[string]string{"env": "prod", "region": "eu"}}, false, true},
		{"values must all match", Target{Values: map[string]string{"env": "prod", "region": "us"}}, false, false},
		{"In", Target{MatchExpressions: []Requirement{{Key: "env", Operator: "In", Values: []string{"staging", "prod"}}}}, false, true},
		{"NotIn wins over a match", Target{MatchExpressions: []Requirement{{Key: "env", Operator: "In", Values: []string{"prod"}}, {Key: "region", Operator: "NotIn", Values: []string{"eu"}}}}, false, false},
		{"Exists", Target{MatchExpressions: []Requirement{{Key: "region", Operator: "Exists"}}}, false, true},
		{"DoesNotExist", Target{MatchExpressions: []Requirement{{Key: "canary", Operator: "DoesNotExist"}}}, false, true},
		{"RollingSync steps read the Application's labels", Target{MatchExpressions: []Requirement{{Key: "envLabel", Operator: "In", Values: []string{"env-prod"}}}}, true, true},
		{"and not the cluster's", Target{MatchExpressions: []Requirement{{Key: "env", Operator: "In", Values: []string{"prod"}}}}, true, false},
		{"an expression over every field", Target{Expr: `name startsWith "prod" && labels.region == "eu" && annotations.team == "payments" && values.tier == "gold" && server contains "10.0"`}, false, true},
		{"an expression that says no", Target{Expr: `labels.env == "dev"`}, false, false},
		{"all set fields must match", Target{Clusters: []string{"prod-1"}, Expr: `labels.env == "dev"`}, false, false},
	}
	c := NewCache(16)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.target.Compile(c); err != nil {
				t.Fatal(err)
			}
			got, err := tc.target.Matches(prod, tc.appLabels)
			if err != nil || got != tc.want {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestExpressionsAreCheckedAtLoad(t *testing.T) {
	c := NewCache(4)
	for src, want := range map[string]string{
		`name`:                                   "expected bool",
		`labels.env ==`:                          "unexpected token",
		`unknown == 1`:                           "unknown name unknown",
		strings.Repeat("x", 5<<20):               "over the limit of 4096",
		strings.Repeat("true && ", 500) + "true": "exceeds maximum allowed nodes",
	} {
		_, err := c.Compile(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.40q: want error containing %q, got %v", src, want, err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%.40q: error is not one line: %q", src, err)
		}
	}
}

func TestCompiledProgramsAreCached(t *testing.T) {
	c := NewCache(2)
	a, _ := c.Compile(`name == "a"`)
	b, _ := c.Compile(`name == "a"`)
	if a != b {
		t.Fatal("the same source compiled twice")
	}
	for _, s := range []string{`name == "b"`, `name == "c"`} {
		_, _ = c.Compile(s)
	}
	if again, _ := c.Compile(`name == "a"`); again == a {
		t.Fatal("the LRU kept more than its size")
	}
}

func TestSelectors(t *testing.T) {
	s := Selector{MatchLabels: map[string]string{"env": "prod"}, MatchExpressions: []Requirement{{Key: "region", Operator: "In", Values: []string{"eu"}}}}
	if err := s.Compile(); err != nil {
		t.Fatal(err)
	}
	if !s.Matches(prod.Labels) || s.Matches(map[string]string{"env": "prod"}) {
		t.Fatal("selector semantics")
	}
	if err := (&Selector{MatchExpressions: []Requirement{{Key: "x", Operator: "In"}}}).Compile(); err == nil {
		t.Fatal("In without values must fail")
	}
	if !(&Selector{}).Matches(nil) {
		t.Fatal("an empty selector matches everything")
	}
}

func TestANilCacheCompilesWithoutCaching(t *testing.T) {
	var c *Cache
	if _, err := c.Compile(`labels.env == "prod"`); err != nil {
		t.Fatal(err)
	}
}

func TestAStepTakesAChildOnlyWhenNoEarlierStepDoes(t *testing.T) {
	dev := Subject{Name: "dev-1", Labels: map[string]string{"canary": "y"}, AppLabels: map[string]string{"env": "dev"}}
	stg := Subject{Name: "stg-1", AppLabels: map[string]string{"env": "staging"}}
	devOrStaging := []Requirement{{Key: "env", Operator: "In", Values: []string{"dev", "staging"}}}
	onlyDev := []Requirement{{Key: "env", Operator: "In", Values: []string{"dev"}}}
	cases := []struct {
		name   string
		target Target
		want   [2]bool // dev, stg
	}{
		{"the first step", Target{Step: &Step{MatchExpressions: devOrStaging}}, [2]bool{true, true}},
		{"a later step leaves what an earlier one took", Target{Step: &Step{MatchExpressions: devOrStaging, Earlier: [][]Requirement{onlyDev}}}, [2]bool{false, true}},
		{"a step without expressions takes the rest", Target{Step: &Step{Earlier: [][]Requirement{onlyDev}}}, [2]bool{false, true}},
		{"after a step that takes everything, nothing", Target{Step: &Step{Earlier: [][]Requirement{nil}}}, [2]bool{false, false}},
		{"and the phase's own target too, over the cluster", Target{Values: map[string]string{"canary": "y"}, Step: &Step{MatchExpressions: devOrStaging}}, [2]bool{true, false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.target.Compile(nil); err != nil {
				t.Fatal(err)
			}
			for i, s := range []Subject{dev, stg} {
				if got, err := tc.target.Matches(s, false); err != nil || got != tc.want[i] {
					t.Fatalf("%s: got %v %v, want %v", s.Name, got, err, tc.want[i])
				}
			}
		})
	}
	if (&Target{Step: &Step{MatchExpressions: onlyDev}}).Compile(nil) != nil {
		t.Fatal("a step alone is a target")
	}
	if err := (&Target{Step: &Step{MatchExpressions: []Requirement{{Key: "env", Operator: "Near"}}}}).Compile(nil); err == nil || !strings.Contains(err.Error(), "step: matchExpressions[0].operator") {
		t.Fatalf("got %v", err)
	}
	var uncompiled Target
	uncompiled.Step = &Step{}
	if ok, _ := uncompiled.Matches(dev, false); ok {
		t.Fatal("an uncompiled step selects nobody")
	}
}
