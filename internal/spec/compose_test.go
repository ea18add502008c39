package spec

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// child is a generated child: its cluster's labels and its Application's labels.
func child(name string, cluster, app map[string]string) targets.Child {
	return targets.Child{Key: name, Subject: targets.Subject{Name: name, Labels: cluster, AppLabels: app}}
}

// selected lists, per phase, the children its targets select (a phase without targets
// selects all), as rollout.Snapshot reads them.
func selected(t *testing.T, phases []Phase, children []targets.Child) string {
	t.Helper()
	var out []string
	for _, p := range phases {
		var keys []string
		for _, c := range children {
			ok := len(p.Targets) == 0
			for i := range p.Targets {
				m, err := p.Targets[i].Matches(c.Subject, p.MatchAppLabels)
				if err != nil {
					t.Fatal(err)
				}
				ok = ok || m
			}
			if ok {
				keys = append(keys, c.Key)
			}
		}
		out = append(out, p.Name+"="+strings.Join(keys, ","))
	}
	return strings.Join(out, " ")
}

func names(phases []Phase) string {
	var out []string
	for _, p := range phases {
		out = append(out, p.Name)
	}
	return strings.Join(out, ",")
}

// TestSeedCoexistenceComposes parses the completed seed 000 coexistence example: the
// RollingSync step orders the Applications, the phases order within it.
func TestSeedCoexistenceComposes(t *testing.T) {
	f := "testdata/compose/000-coexist.yaml"
	s, err := Parse(f, mustReadFile(t, f), targets.NewCache(16))
	if err != nil {
		t.Fatal(err)
	}
	if s.Dialect != "RollingSync+phaseDeployment" || names(s.Phases) != "canary-step1,rest-step1" {
		t.Fatalf("dialect %s, phases %s", s.Dialect, names(s.Phases))
	}
	canary, rest := s.Phases[0], s.Phases[1]
	if canary.Size != (Size{Kind: SizeCount, Value: 1}) || canary.WaitDuration != time.Minute || len(canary.PostHooks) != 1 || canary.Throttle.Kind != SizeAll {
		t.Fatalf("canary keeps its size, soak and hooks: %+v", canary)
	}
	if len(rest.Checks) != 1 || rest.OnFailure != "stop" || rest.Size.Kind != SizeAll || rest.MatchAppLabels {
		t.Fatalf("rest keeps its checks and onFailure: %+v", rest)
	}
	children := []targets.Child{
		child("dev-canary", map[string]string{"env": "dev", "canary": "true"}, map[string]string{"env": "dev"}),
		child("dev-1", map[string]string{"env": "dev"}, map[string]string{"env": "dev"}),
		child("prod-canary", map[string]string{"env": "prod", "canary": "true"}, map[string]string{"env": "prod"}),
	}
	if got := selected(t, s.Phases, children); got != "canary-step1=dev-canary rest-step1=dev-canary,dev-1" {
		t.Fatalf("only the step's Applications, by phase: %s", got)
	}
}

// composed builds a spec with the given spec.strategy and phases.
func composed(strategy, phases string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: c}
spec:
  strategy:
` + indent(strategy, "    ") + `
  generators:
  - clusters: {}
    deploymentStrategy:
      type: phaseDeployment
      phases:
` + indent(phases, "      ") + `
  template:
    metadata: {name: "{{name}}", labels: {env: "{{metadata.labels.env}}"}}
    spec:
      project: default
      source: {repoURL: https://github.com/example/app, path: manifests}
      destination: {server: "{{server}}", namespace: default}
`
}

func indent(s, by string) string {
	return by + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+by)
}

const twoSteps = `type: RollingSync
rollingSync:
  steps:
  - matchExpressions: [{key: env, operator: In, values: [dev, staging]}]
  - matchExpressions: [{key: env, operator: In, values: [staging, prod]}]
    maxUpdate: %s`

const twoPhases = `- name: canary
  targets: [{matchExpressions: [{key: canary, operator: Exists}]}]
  percentage: 50
- name: rest
  targets: [{matchExpressions: [{key: env, operator: Exists}]}]`

func TestComposedPhases(t *testing.T) {
	children := []targets.Child{
		child("dev-c", map[string]string{"env": "dev", "canary": "y"}, map[string]string{"env": "dev"}),
		child("staging-1", map[string]string{"env": "staging"}, map[string]string{"env": "staging"}),
		child("prod-c", map[string]string{"env": "prod", "canary": "y"}, map[string]string{"env": "prod"}),
		child("prod-1", map[string]string{"env": "prod"}, map[string]string{"env": "prod"}),
	}
	tests := []struct {
		name, strategy, phases string
		check                  func(t *testing.T, s *Spec)
	}{
		{"every step × every phase, a child in the first step that selects it", fmt.Sprintf(twoSteps, "2"), twoPhases, func(t *testing.T, s *Spec) {
			want := "canary-step1=dev-c rest-step1=dev-c,staging-1 canary-step2=prod-c rest-step2=prod-c,prod-1"
			if got := selected(t, s.Phases, children); got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		}},
		{"the phase's size says how many, the step's maxUpdate how many at once", fmt.Sprintf(twoSteps, `"25%"`), twoPhases, func(t *testing.T, s *Spec) {
			p := s.Phases
			if p[2].Size != (Size{Kind: SizePercent, Value: 50}) || p[2].Throttle != (Size{Kind: SizePercent, Value: 25}) || p[3].Throttle != p[2].Throttle || p[0].Throttle.Kind != SizeAll {
				t.Fatalf("%+v", p)
			}
		}},
		{"a RollingSync step's maxUpdate 0 gates the step's first phase", fmt.Sprintf(twoSteps, "0"), twoPhases, func(t *testing.T, s *Spec) {
			p := s.Phases
			if p[2].Size != (Size{Kind: SizePercent, Value: 50, Gate: true}) || p[3].Size.Gate || p[0].Size.Gate || p[2].Throttle.Kind != SizeAll {
				t.Fatalf("%+v", p)
			}
		}},
		{"a RollingUpdate step's maxUpdate 0 is no bound", strings.Replace(strings.Replace(fmt.Sprintf(twoSteps, "0"), "RollingSync", "RollingUpdate", 1), "rollingSync", "rollingUpdate", 1), twoPhases, func(t *testing.T, s *Spec) {
			if s.Dialect != "RollingUpdate+phaseDeployment" || s.Phases[2].Size.Gate || s.Phases[2].Throttle.Kind != SizeAll {
				t.Fatalf("%s %+v", s.Dialect, s.Phases)
			}
		}},
		{"the stricter progressDeadline and maxFailures", `type: RollingSync
rollingSync:
  steps:
  - {progressDeadline: 10m, maxFailures: 3}
  - {maxFailures: 1}`, `- {name: a, targets: [{values: {env: dev}}], progressDeadline: 20m, maxFailures: 2}
- {name: b, targets: [{values: {env: dev}}], progressDeadline: 5m}`, func(t *testing.T, s *Spec) {
			got := ""
			for _, p := range s.Phases {
				got += fmt.Sprintf("%s:%s/%d ", p.Name, p.ProgressDeadline, p.MaxFailures)
			}
			if got != "a-step1:10m0s/2 b-step1:5m0s/0 a-step2:20m0s/1 b-step2:5m0s/0 " {
				t.Fatal(got)
			}
		}},
		{"a step without matchExpressions takes every child the earlier steps left", `type: RollingSync
rollingSync:
  steps:
  - matchExpressions: [{key: env, operator: In, values: [dev]}]
  - {}`, `- {name: all, targets: []}`, func(t *testing.T, s *Spec) {
			if got := selected(t, s.Phases, children); got != "all-step1=dev-c all-step2=staging-1,prod-c,prod-1" {
				t.Fatal(got)
			}
		}},
		{"AllAtOnce is one step: the phases as declared", "type: AllAtOnce\ndeletionOrder: AllAtOnce", twoPhases, func(t *testing.T, s *Spec) {
			if s.Dialect != DialectPhaseDeployment || names(s.Phases) != "canary,rest" || s.DeletionOrder != "AllAtOnce" {
				t.Fatalf("%s %s %s", s.Dialect, names(s.Phases), s.DeletionOrder)
			}
		}},
		{"options from whichever strategy sets them", "type: RollingSync\nrollingSync: {steps: [{}]}\nlateJoiners: join\nconfirmRemoval: true", twoPhases, func(t *testing.T, s *Spec) {
			if s.LateJoiners != LateJoinersJoin || !s.ConfirmRemoval || !s.PinCommits {
				t.Fatalf("%+v", s)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("c.yaml", []byte(composed(tc.strategy, tc.phases)), targets.NewCache(16))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, s)
		})
	}
}

func TestComposedSpecsRefuse(t *testing.T) {
	long := strings.Repeat("p", 60)
	tests := []struct {
		name, strategy, phases, want string
	}{
		{"a composed name over 63 characters", "type: RollingSync\nrollingSync: {steps: [{}]}", "- {name: " + long + ", targets: []}",
			`spec.generators[0].deploymentStrategy.phases[0].name: composed phase name "` + long + `-step1" (phase ` + long + ` in spec.strategy step 1) is not a DNS label of at most 63 characters (fix: shorten the phase name to at most 57 characters)`},
		{"an option set in both places", "type: RollingSync\nrollingSync: {steps: [{}]}\npinCommits: false", twoPhases + "\npinCommits: true",
			"spec.strategy.pinCommits: is also set in spec.generators[0].deploymentStrategy.pinCommits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := composed(tc.strategy, tc.phases)
			if strings.Contains(tc.phases, "pinCommits") { // an option of the deploymentStrategy, not a phase
				text = composed(tc.strategy, twoPhases)
				text = strings.Replace(text, "      type: phaseDeployment\n", "      type: phaseDeployment\n      pinCommits: true\n", 1)
			}
			_, err := Parse("c.yaml", []byte(text), targets.NewCache(16))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSeveralDeploymentStrategiesAreRefused: a deploymentStrategy's phases already order the
// children of every generator; a second one would need to know which generator made each
// child, which no phase sees.
func TestSeveralDeploymentStrategiesAreRefused(t *testing.T) {
	text := strings.Replace(composed("type: RollingSync\nrollingSync: {steps: [{}]}", twoPhases), "  template:\n",
		"  - list: {elements: [{name: x, server: https://x}]}\n    deploymentStrategy: {type: phaseDeployment, phases: [{name: x, targets: []}]}\n  template:\n", 1)
	_, err := Parse("c.yaml", []byte(text), targets.NewCache(16))
	if err == nil || !strings.Contains(err.Error(), "spec.generators[1].deploymentStrategy: only one generator may carry a deploymentStrategy") {
		t.Fatalf("got %v", err)
	}
}

// TestComposedWindowsNameEachWindowOnce: both strategies' windows apply to the one rollout;
// a name in both lists is refused at parse time (the plan could not name the window once).
func TestComposedWindowsNameEachWindowOnce(t *testing.T) {
	for _, tc := range []struct {
		name, strategyWindow, want string // want "": parses, both windows kept
	}{
		{"distinct names", "night", ""},
		{"the same name", "freeze", `spec.strategy.windows[0].name: duplicate window name "freeze": spec.generators[0].deploymentStrategy.windows has one too`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := composed("type: RollingSync\nrollingSync: {steps: [{}]}\nwindows: [{name: "+tc.strategyWindow+`, kind: deny, schedule: "0 22 * * *", duration: 8h}]`, twoPhases)
			text = strings.Replace(text, "      type: phaseDeployment\n",
				"      type: phaseDeployment\n      windows: [{name: freeze, kind: deny, start: \"2026-12-20T00:00:00Z\", end: \"2027-01-06T00:00:00Z\"}]\n", 1)
			s, err := Parse("c.yaml", []byte(text), targets.NewCache(16))
			if tc.want == "" {
				if err != nil || len(s.Windows) != 2 {
					t.Fatalf("err %v windows %+v", err, s)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix: rename one of the two windows") {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
