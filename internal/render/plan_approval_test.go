package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestAnApprovalGateReachesTheAgent: a phase's approval block goes through the plan as
// parsed; a phase without one has none (and its plan JSON no "approval" field).
func TestAnApprovalGateReachesTheAgent(t *testing.T) {
	yaml := strings.Replace(minimalSpec, "      - name: dev\n", "      - name: dev\n        approval: {required: 2, groups: [sre], afterChecks: true}\n", 1)
	_, cm := planFrom(t, "spec.yaml", yaml)
	p, err := plan.Decode(manifest(cm), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	want := &spec.Approval{Required: 2, Groups: []string{"sre"}, AfterChecks: true}
	if !reflect.DeepEqual(p.Phases[0].Approval, want) || p.Phases[1].Approval != nil {
		t.Fatalf("approvals %+v %+v", p.Phases[0].Approval, p.Phases[1].Approval)
	}
	if n := strings.Count(cm.Data["phases.json"], `"approval"`); n != 1 {
		t.Fatalf("%d approval fields in %s", n, cm.Data["phases.json"])
	}
	// a gate no approval opens (required 0) makes the plan unreadable: fail closed
	cm.Data["phases.json"] = strings.Replace(cm.Data["phases.json"], `"required":2`, `"required":0`, 1)
	if _, err := plan.Decode(manifest(cm), targets.NewCache(8)); err == nil || !strings.Contains(err.Error(), "phase dev: approval.required is 0") {
		t.Fatalf("a plan with approval.required 0: %v", err)
	}
}

const minimalSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: demo}
spec:
  generators:
  - clusters: {}
    deploymentStrategy:
      type: phaseDeployment
      phases:
      - name: dev
        targets: [{matchExpressions: [{key: env, operator: In, values: [dev]}]}]
      - name: prod
        targets: [{matchExpressions: [{key: env, operator: In, values: [prod]}]}]
  template:
    metadata: {name: '{{name}}-demo'}
    spec:
      project: default
      source: {repoURL: https://example.com/x.git, path: p}
      destination: {server: '{{server}}', namespace: demo}
`
