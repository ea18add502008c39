package spec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

const base = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: demo
spec:
  generators:
  - clusters: {}
    deploymentStrategy:
      type: phaseDeployment
      phases:
      - name: canary
        percentage: 10
        targets:
        - expr: EXPR
      - name: rest
        maxUpdate: MAXUPDATE
        targets:
        - matchExpressions:
          - {key: env, operator: Exists}
  template:
    metadata:
      name: '{{name}}-demo'
    spec:
      project: default
      source: {repoURL: https://example.com/x.git, path: p}
      destination: {server: '{{server}}', namespace: demo}
`

func specWith(expr, maxUpdate string) []byte {
	return []byte(strings.NewReplacer("EXPR", expr, "MAXUPDATE", maxUpdate).Replace(base))
}

func TestParseErrorsNameFileLineAndField(t *testing.T) {
	cases := map[string]struct {
		expr, maxUpdate string
		want            []string
	}{
		"a non-boolean expression":            {`'name'`, "1", []string{"spec.yaml:14:", "phases[0].targets[0].expr", "expected bool", "(fix: make expr a condition"}},
		"an expression that does not compile": {`'labels.env == '`, "1", []string{"spec.yaml:14:", "targets[0].expr", "unexpected token", "(fix: correct the expression"}},
		"an unknown name in an expression":    {`'nope == "x"'`, "1", []string{"targets[0].expr", "unknown name nope", "(fix: name only name, server"}},
		"a 5 MiB expression":                  {`'` + strings.Repeat("x", 5<<20) + `'`, "1", []string{"spec.yaml:14:", "targets[0].expr", "over the limit of 4096", "(fix: split the expression"}},
		"a bad maxUpdate":                     {`'true'`, `"ten%"`, []string{"spec.yaml:16:", "phases[1].maxUpdate", `invalid percentage "ten%"`}},
		"a negative maxUpdate":                {`'true'`, "-1", []string{"phases[1].maxUpdate", "invalid maxUpdate"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("spec.yaml", specWith(c.expr, c.maxUpdate), targets.NewCache(8))
			if err == nil {
				t.Fatal("want an error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || len(msg) > 2000 {
				t.Fatalf("error is not one short line: %.300q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestParseNormalisesSizes(t *testing.T) {
	s, err := Parse("spec.yaml", specWith(`'labels.env == "prod"'`, `"25%"`), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Phases[0].Size; got != (Size{Kind: SizePercent, Value: 10}) {
		t.Errorf("canary size %+v", got)
	}
	if got := s.Phases[1].Size; got != (Size{Kind: SizePercent, Value: 25}) {
		t.Errorf("rest size %+v", got)
	}
	if s.Phases[0].OnFailure != "stop" || s.Dialect != DialectPhaseDeployment {
		t.Errorf("defaults: %+v", s.Phases[0])
	}
}

func TestRollingSyncZeroIsAGateButRollingUpdateZeroIsAll(t *testing.T) {
	sync := parseSeed(t, "testdata/seeds/003-guestbook-rolling-sync.yaml")
	if g := sync.Phases[1].Size; !g.Gate {
		t.Errorf("RollingSync maxUpdate: 0 must be a manual gate, got %+v", g)
	}
	if g := sync.Phases[2].Size; g != (Size{Kind: SizePercent, Value: 10}) {
		t.Errorf("RollingSync maxUpdate: 10%% got %+v", g)
	}
	upd := parseSeed(t, "testdata/seeds/001-guestbook-rolling-update.yaml")
	if g := upd.Phases[0].Size; g.Gate || g.Kind != SizeAll {
		t.Errorf("RollingUpdate maxUpdate: 0 means all at once (seed 001), got %+v", g)
	}
	if g := upd.Phases[2].Size; g != (Size{Kind: SizeCount, Value: 1}) {
		t.Errorf("RollingUpdate maxUpdate: 1 got %+v", g)
	}
}

func parseSeed(t *testing.T, f string) *Spec {
	t.Helper()
	s, err := Load(f[:strings.LastIndex(f, "/")], targets.NewCache(8))
	if err == nil {
		t.Fatalf("the seeds directory holds several ApplicationSets; Load must refuse it, got %v", s.Name)
	}
	b := mustReadFile(t, f)
	s, err = Parse(f, b, targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzParse: no input panics; errors are located and one line each.
func FuzzParse(f *testing.F) {
	f.Add(specWith(`'true'`, "1"))
	f.Add([]byte("kind: ApplicationSet\nspec: [\n"))
	f.Add([]byte("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nspec:\n  generators: [{list: {elements: [{a: b}]}}]\n"))
	f.Add(withMinVersion(`"v1.3.0-rc.1"`))
	f.Add(withOrdering("        order: int(labels.weight)\n        spread: labels.region\n        maxFailures: 1\n"))
	f.Add(policySpec("checks", "command", "Continue"))
	exprs := targets.NewCache(64)
	f.Fuzz(func(t *testing.T, b []byte) {
		var err error
		done := make(chan struct{})
		go func() { _, err = Parse("fuzz.yaml", b, exprs); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second): // bounded time: a liveness bound, not a target
			t.Fatalf("Parse has not returned after 10 s on %q", b)
		}
		if es, ok := err.(Errors); ok {
			for _, e := range es {
				if e.File != "fuzz.yaml" || e.Path == "" {
					t.Fatalf("unlocated error %+v", e)
				}
			}
		}
	})
}

// TestProgressDeadlineNoneIsReadAndCarried: "none" is NoDeadline, through the plan's JSON
// and back, and a step composed with it keeps the phase's set deadline.
func TestProgressDeadlineNoneIsReadAndCarried(t *testing.T) {
	src := strings.Replace(string(specWith("'true'", "1")), "        percentage: 10\n", "        percentage: 10\n        progressDeadline: none\n", 1)
	s, err := Parse("spec.yaml", []byte(src), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if s.Phases[0].ProgressDeadline != NoDeadline || s.Phases[1].ProgressDeadline != 0 {
		t.Fatalf("none is NoDeadline, unset 0: %v %v", s.Phases[0].ProgressDeadline, s.Phases[1].ProgressDeadline)
	}
	b, err := json.Marshal(s.Phases[0])
	if err != nil || !strings.Contains(string(b), `"progressDeadline":"none"`) {
		t.Fatalf("the plan carries none: %s %v", b, err)
	}
	var back Phase
	if err := json.Unmarshal(b, &back); err != nil || back.ProgressDeadline != NoDeadline {
		t.Fatalf("none read back: %v %v", back.ProgressDeadline, err)
	}
	if shorter(NoDeadline, 5*time.Minute) != 5*time.Minute || shorter(5*time.Minute, NoDeadline) != 5*time.Minute || shorter(0, NoDeadline) != NoDeadline {
		t.Fatal("a set deadline is stricter than none, none stricter than unset")
	}
}

func TestParseReadsTheRolloutExtensions(t *testing.T) {
	src := strings.Replace(string(specWith("'true'", "1")), "      type: phaseDeployment\n",
		"      type: phaseDeployment\n      lateJoiners: join\n", 1)
	src = strings.Replace(src, "        percentage: 10\n", "        percentage: 10\n        progressDeadline: 10m\n        maxFailures: 2\n", 1)
	s, err := Parse("spec.yaml", []byte(src), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if s.LateJoiners != LateJoinersJoin || s.Phases[0].ProgressDeadline != 10*time.Minute || s.Phases[0].MaxFailures != 2 || s.Phases[1].MaxFailures != 0 {
		t.Fatalf("%+v", s)
	}
	for name, bad := range map[string]struct{ from, to, want string }{
		"an unknown late-joiner policy": {"type: phaseDeployment\n", "type: phaseDeployment\n      lateJoiners: always\n", `lateJoiners: unknown value "always" (fix: use one of: defer, join)`},
		"a negative maxFailures":        {"percentage: 10\n", "percentage: 10\n        maxFailures: -1\n", "phases[0].maxFailures: out of range: -1"},
		"a deadline that is not one":    {"percentage: 10\n", "percentage: 10\n        progressDeadline: soon\n", `phases[0].progressDeadline: invalid duration "soon"`},
		"a deadline of zero":            {"percentage: 10\n", "percentage: 10\n        progressDeadline: 0s\n", `phases[0].progressDeadline: a progressDeadline of "0s" ends nothing (fix: leave it out for the default (10m), or write "none"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("spec.yaml", []byte(strings.Replace(string(specWith("'true'", "1")), bad.from, bad.to, 1)), targets.NewCache(8))
			if err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Fatalf("got %v, want %q", err, bad.want)
			}
		})
	}
}

// TestAFragmentGetsEachProblemOnce: seed 000's coexistence fragment (no metadata, phases
// written as [...]) is told each problem once, at a real line, with a fix: no line 0, no
// "is required" for the fields of what is missing or not a mapping.
func TestAFragmentGetsEachProblemOnce(t *testing.T) {
	frag := "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nspec:\n  generators:\n  - clusters: {}\n    deploymentStrategy:\n      type: phaseDeployment\n      phases: [...]\n"
	_, err := Parse("frag.yaml", []byte(frag), targets.NewCache(4))
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("want spec errors, got %v", err)
	}
	lines := es.Lines()
	for _, l := range lines {
		if strings.Contains(l, "frag.yaml:0:") || !strings.Contains(l, "(fix: ") {
			t.Errorf("%q: at line 0 or without a fix", l)
		}
		if strings.Contains(l, " metadata.name:") || strings.Contains(l, "phases[0].name:") || strings.Contains(l, "phases[0].targets:") {
			t.Errorf("%q: a field of something missing or not a mapping", l)
		}
	}
	if len(lines) != 3 {
		t.Errorf("want metadata, spec.template and phases[0], got %q", lines)
	}
}

// TestOrderShuffleIsAccepted: order: shuffle is read as written and compiles to the seeded
// hash; hash and seed may be used in any order or target expression.
func TestOrderShuffleIsAccepted(t *testing.T) {
	src := strings.Replace(string(specWith("'true'", "1")), "        percentage: 10\n", "        percentage: 10\n        order: shuffle\n", 1)
	s, err := Parse("spec.yaml", []byte(src), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if s.Phases[0].Ordering.Order != targets.Shuffle || !s.Phases[0].Ordering.Compiled() {
		t.Fatalf("%+v", s.Phases[0].Ordering)
	}
	src = strings.Replace(string(specWith("'true'", "1")), "        percentage: 10\n", "        percentage: 10\n        order: hash(\"fixed/\" + name)\n", 1)
	if _, err := Parse("spec.yaml", []byte(src), targets.NewCache(8)); err != nil {
		t.Fatalf("a fixed seed: %v", err)
	}
}
