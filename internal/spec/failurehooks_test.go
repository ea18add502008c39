package spec_test

import (
	"encoding/json"
	"strings"
	"testing"

	_ "github.com/cmp-phase/cmp-phase/internal/hooks/all"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// failureSpec is the test spec with the canary phase's onFailure and the rollout's
// onFailure (next to phases) as given, each a block of YAML at its place ("": none).
func failureSpec(phase, rollout string) []byte {
	s := string(spec.SpecWith(`'true'`, "1"))
	if phase != "" {
		s = strings.Replace(s, "      - name: rest\n", phase+"      - name: rest\n", 1)
	}
	if rollout != "" {
		s = strings.Replace(s, "      type: phaseDeployment\n", "      type: phaseDeployment\n"+rollout, 1)
	}
	return []byte(s)
}

const (
	incident = "        onFailure:\n          action: rollback\n          hooks:\n          - name: incident\n            type: http\n            http: {url: 'https://pager.example.com/open'}\n"
	rollout  = "      onFailure:\n        stopHooks:\n        - {name: page, type: http, http: {url: 'https://pager.example.com/page'}}\n" +
		"        rollbackHooks:\n        - {name: undo, type: http, http: {url: 'https://x.example.com/undo'}}\n" +
		"        rolledBackHooks:\n        - {name: done, type: http, http: {url: 'https://x.example.com/done'}, failurePolicy: ignore}\n"
)

// TestFailureHooksAreReadAndCarriedByThePlan: a phase's onFailure.hooks and the rollout's
// stopHooks, rollbackHooks and rolledBackHooks are read as hooks and reach the agent
// through the plan unchanged.
func TestFailureHooksAreReadAndCarriedByThePlan(t *testing.T) {
	s, err := spec.Parse("spec.yaml", failureSpec(incident, rollout), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Phases[0]; p.OnFailure != "rollback" || len(p.FailureHooks) != 1 || p.FailureHooks[0].Name != "incident" {
		t.Fatalf("phase: %+v", p)
	}
	f := s.OnFailure
	if len(f.Stop) != 1 || len(f.Rollback) != 1 || len(f.RolledBack) != 1 || f.RolledBack[0].FailurePolicy != "ignore" {
		t.Fatalf("rollout: %+v", f)
	}
	b, err := json.Marshal(plan.New(s, "r1", nil))
	if err != nil {
		t.Fatal(err)
	}
	var back plan.Plan
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.OnFailure.Stop[0].Name != "page" || back.OnFailure.RolledBack[0].Name != "done" || back.Phases[0].FailureHooks[0].Name != "incident" {
		t.Fatalf("the plan carries them: %s", b)
	}
	withPost, err := spec.Parse("spec.yaml", failureSpec("", "      postDeleteHooks:\n      - {name: deregister, type: http, http: {url: 'https://dns.example.com/{{name}}'}}\n"), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(plan.New(withPost, "r1", nil)); !strings.Contains(string(b), `"postDeleteHooks":[{"name":"deregister"`) || !withPost.PostDeleteHooks[0].PerCluster() {
		t.Fatalf("post-delete hooks are read, per cluster when templated so, and carried: %s", b)
	}
	plain, err := spec.Parse("spec.yaml", failureSpec("", ""), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(plan.New(plain, "r1", nil)); strings.Contains(string(b), "onFailure\":{") || strings.Contains(string(b), "failureHooks") {
		t.Fatalf("a spec without failure hooks writes the plan it always did: %s", b)
	}
}

func TestFailureHooksThatCannotMeanAnythingAreRefused(t *testing.T) {
	for name, c := range map[string]struct {
		phase, rollout string
		want           []string
	}{
		"hooks under continue": {strings.Replace(incident, "rollback", "continue", 1), "",
			[]string{"phases[0].onFailure.hooks", "continue never fails the phase", "fix: remove them, or use action: stop or rollback"}},
		"abort on a failure hook": {strings.Replace(incident, "            http:", "            failurePolicy: abort\n            http:", 1), "",
			[]string{"onFailure.hooks[0].failurePolicy", "abort has nothing to stop", "fix: use fail, ignore or retry"}},
		"an empty onFailure": {"", "      onFailure: {}\n",
			[]string{"deploymentStrategy.onFailure", "is empty", "fix: list stopHooks, rollbackHooks or rolledBackHooks"}},
		"an unknown list": {"", "      onFailure:\n        failHooks: []\n",
			[]string{"onFailure.failHooks", "unknown field", "stopHooks, rollbackHooks, rolledBackHooks"}},
		"abort on a post-delete hook": {"", "      postDeleteHooks:\n      - {name: d, type: http, failurePolicy: abort, http: {url: 'https://x.example.com'}}\n",
			[]string{"postDeleteHooks[0].failurePolicy", "abort has nothing to stop"}},
		"a hook without a name": {"", "      onFailure:\n        stopHooks:\n        - {type: http, http: {url: 'https://x.example.com'}}\n",
			[]string{"onFailure.stopHooks[0].name", "name the hook"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := spec.Parse("spec.yaml", failureSpec(c.phase, c.rollout), targets.NewCache(8))
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

// TestRollingSyncTakesTheRolloutsFailureHooksInSpecStrategy: seed 003's dialect has them
// in spec.strategy.
func TestRollingSyncTakesTheRolloutsFailureHooksInSpecStrategy(t *testing.T) {
	doc := `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: demo}
spec:
  generators:
  - list:
      elements: [{cluster: a, url: 'https://a'}]
  strategy:
    type: RollingSync
    onFailure:
      stopHooks:
      - {name: page, type: http, http: {url: 'https://pager.example.com/page'}}
    rollingSync:
      steps:
      - matchExpressions: [{key: env, operator: In, values: [dev]}]
  template:
    metadata: {name: '{{cluster}}-demo', labels: {env: dev}}
    spec:
      project: default
      source: {repoURL: https://example.com/x.git, path: p}
      destination: {server: '{{url}}', namespace: demo}
`
	s, err := spec.Parse("spec.yaml", []byte(doc), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.OnFailure.Stop) != 1 || s.OnFailure.Stop[0].Name != "page" {
		t.Fatalf("%+v", s.OnFailure)
	}
}
