package rollout

import (
	"fmt"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	_ "github.com/cmp-phase/cmp-phase/internal/spec/appset" // the template check the spec parser needs
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// composedSpec has RollingSync steps (dev, then staging and prod one at a time) and a
// generator's phases (one child, then the rest) composed: four phases.
const composedSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: c}
spec:
  strategy:
    type: RollingSync
    rollingSync:
      steps:
      - matchExpressions: [{key: env, operator: In, values: [dev]}]
      - matchExpressions: [{key: env, operator: In, values: [staging, prod]}]
        maxUpdate: 1
  generators:
  - clusters: {}
    deploymentStrategy:
      type: phaseDeployment
      phases:
      - {name: one, targets: [{matchExpressions: [{key: env, operator: Exists}]}], maxUpdate: 1}
      - {name: rest, targets: [{matchExpressions: [{key: env, operator: Exists}]}]}
  template:
    metadata: {name: "{{name}}", labels: {env: "{{metadata.labels.env}}"}}
    spec:
      project: default
      source: {repoURL: https://github.com/example/app, path: manifests}
      destination: {server: "{{server}}", namespace: default}
`

// TestAComposedSpecRollsOutStepByStepThenPhaseByPhase drives the engine through the
// composed phases: nothing downstream knows there were two strategies.
func TestAComposedSpecRollsOutStepByStepThenPhaseByPhase(t *testing.T) {
	s, err := spec.Parse("c.yaml", []byte(composedSpec), targets.NewCache(16))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(s.Phases...)
	w.step(t, 0)
	r := w.st.Rollout
	if got := fmt.Sprint(r.Phases[0].Members, r.Phases[1].Members, r.Phases[2].Members, r.Phases[3].Members); got != "[dev-1 dev-2] [dev-1 dev-2] [prod-1 prod-2 staging-1 staging-2] [prod-1 prod-2 staging-1 staging-2]" {
		t.Fatalf("members %s", got)
	}
	// One child at a time: the phase "one" admits one, and the second step's maxUpdate 1
	// throttles its "rest".
	want := []string{"[dev-1]", "[dev-1 dev-2]", "[dev-1 dev-2 prod-1]", "[dev-1 dev-2 prod-1 prod-2]", "[dev-1 dev-2 prod-1 prod-2 staging-1]", "[dev-1 dev-2 prod-1 prod-2 staging-1 staging-2]"}
	for i, adm := range want {
		if got := fmt.Sprint(w.admitted()); got != adm {
			t.Fatalf("after %d children settled, admitted %s, want %s (at %s)", i, got, adm, r.Phases[w.st.Rollout.Phase].Name)
		}
		last := w.admitted()[len(w.admitted())-1]
		w.syncs(10*i+5, "r2", last)
		w.step(t, 10*i+10)
		r = w.st.Rollout
	}
	if r.Status != StatusCompleted {
		t.Fatalf("rollout %s at %d", r.Status, r.Phase)
	}
}
