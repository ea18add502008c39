package spec

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

const strategyBase = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: demo
spec:
  generators:
  - list:
      elements:
      - {cluster: dev, url: https://1.2.3.4, env: env-dev}
  strategy:
STRATEGY
  template:
    metadata:
      name: '{{cluster}}-demo'
      labels: {envLabel: '{{env}}'}
    spec:
      project: default
      source: {repoURL: https://example.com/x.git, path: p}
      destination: {server: '{{url}}', namespace: demo}
`

const stepsBlock = `    rollingSync:
      steps:
      - matchExpressions: [{key: envLabel, operator: In, values: [env-dev]}]
      - matchExpressions: [{key: envLabel, operator: In, values: [env-prod]}]`

func TestDeletionOrder(t *testing.T) {
	cases := map[string]struct {
		strategy string
		want     string // the parsed deletionOrder, or the error's text
		wantErr  bool
	}{
		"seed 003: RollingSync without deletionOrder is AllAtOnce": {"    type: RollingSync\n" + stepsBlock, DeletionAllAtOnce, false},
		"seed 003: Reverse with RollingSync steps":                 {"    type: RollingSync\n    deletionOrder: Reverse\n" + stepsBlock, DeletionReverse, false},
		"seed 003: AllAtOnce snippet without steps":                {"    type: AllAtOnce\n    deletionOrder: AllAtOnce", DeletionAllAtOnce, false},
		"seed 003: the RollingSync snippet without steps":          {"    type: RollingSync # or AllAtOnce\n    deletionOrder: AllAtOnce # explicit, but this is the default", DeletionAllAtOnce, false},
		"Reverse with RollingSync and steps left out":              {"    type: RollingSync\n    deletionOrder: Reverse", "rollingSync.steps", true},
		"Reverse with AllAtOnce":                                   {"    type: AllAtOnce\n    deletionOrder: Reverse", "spec.strategy.deletionOrder: Reverse needs type: RollingSync (seed 003), not AllAtOnce", true},
		"Reverse with RollingUpdate": {"    type: RollingUpdate\n    deletionOrder: Reverse\n" + strings.ReplaceAll(stepsBlock, "rollingSync", "rollingUpdate"),
			"Reverse needs type: RollingSync (seed 003), not RollingUpdate", true},
		"Reverse with RollingSync and no steps": {"    type: RollingSync\n    deletionOrder: Reverse\n    rollingSync: {steps: []}", "rollingSync.steps", true},
		"an unknown order":                      {"    type: RollingSync\n    deletionOrder: Sideways\n" + stepsBlock, "spec.strategy.deletionOrder", true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := Parse("spec.yaml", []byte(strings.Replace(strategyBase, "STRATEGY", c.strategy, 1)), targets.NewCache(8))
			if c.wantErr {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("want an error naming %q, got %v", c.want, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.DeletionOrder != c.want || RemovalOrder(s.DeletionOrder) != c.want {
				t.Errorf("deletionOrder %q (applies: %q), want %q", s.DeletionOrder, RemovalOrder(s.DeletionOrder), c.want)
			}
		})
	}
}

func TestPhaseDeploymentRemovesInReverse(t *testing.T) {
	s, err := Parse("spec.yaml", specWith(`'true'`, "1"), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if s.DeletionOrder != "" || RemovalOrder(s.DeletionOrder) != DeletionReverse {
		t.Errorf("phaseDeployment: deletionOrder %q applies %q, want Reverse", s.DeletionOrder, RemovalOrder(s.DeletionOrder))
	}
}

// TestASpecRemovedFromGitIsRefused: a directory without its ApplicationSet fails closed,
// and the error says how to remove the rollout instead.
func TestASpecRemovedFromGitIsRefused(t *testing.T) {
	_, err := Load(t.TempDir(), targets.NewCache(8))
	if err == nil || !strings.Contains(err.Error(), "no ApplicationSet found") || !strings.Contains(err.Error(), "deleted with the resources finalizer") {
		t.Fatalf("want a refusal naming the way to remove the rollout, got %v", err)
	}
}

// TestStepsMayBeLeftOut: seeds 001 and 003 leave a rolling strategy's steps out; every
// child is then updated together, as one step.
func TestStepsMayBeLeftOut(t *testing.T) {
	for _, strategy := range []string{"    type: RollingSync", "    type: RollingUpdate", "    type: RollingSync\n    rollingSync: {}", "    type: RollingUpdate\n    rollingUpdate: {}"} {
		s, err := Parse("spec.yaml", []byte(strings.Replace(strategyBase, "STRATEGY", strategy, 1)), targets.NewCache(8))
		if err != nil {
			t.Fatalf("%q: %v", strategy, err)
		}
		if len(s.Phases) != 1 || s.Phases[0].Name != "all" || s.Phases[0].Size.Kind != SizeAll || len(s.Phases[0].Targets) != 0 || s.Phases[0].MatchAppLabels {
			t.Fatalf("%q: one step of every child, got %+v", strategy, s.Phases)
		}
	}
	if _, err := Parse("spec.yaml", []byte(strings.Replace(strategyBase, "STRATEGY", "    type: RollingSync\n    rollingSync: {steps: []}", 1)), targets.NewCache(8)); err == nil || !strings.Contains(err.Error(), "leave rollingSync out") {
		t.Fatalf("an empty list of steps says how to write none: %v", err)
	}
}
