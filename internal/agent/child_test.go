package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// destSpec templates each child's project and destination namespace per cluster, and has
// a per-cluster job check.
const destSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: web
spec:
  generators:
  - clusters: {}
    deploymentStrategy:
      type: phaseDeployment
      phases:
      - name: dev
        targets:
        - values: {env: dev}
        checks:
        - name: smoke
          type: job
          job:
            spec:
              template:
                spec:
                  containers: [{name: c, image: 'smoke:{{name}}'}]
      - name: prod
        targets:
        - values: {env: prod}
  template:
    metadata:
      name: 'web-{{name}}'
    spec:
      project: '{{metadata.labels.project}}'
      source: {repoURL: 'https://example.com/web.git', path: web, targetRevision: main}
      destination: {server: '{{server}}', namespace: 'web-{{name}}'}
`

// TestChildDestIsTheChildsAtTheRolloutsRevision: a per-cluster run's project and
// namespace, for a kind that reads the child (a job hook), are its child's as the rollout's
// revision renders it, admitted or not yet (a pre-hook's); other runs (per phase, or of a
// kind that does not read the child) get none; a child the revision does not render is an
// error.
func TestChildDestIsTheChildsAtTheRolloutsRevision(t *testing.T) {
	s, err := spec.Parse("spec.yaml", []byte(destSpec), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	_, body, id, err := s.Revision()
	if err != nil {
		t.Fatal(err)
	}
	inv := &inventory.Inventory{Clusters: []inventory.Cluster{
		{Name: "dev-1", Server: "https://dev-1", Labels: map[string]string{"env": "dev", "project": "dev-apps"}},
		{Name: "prod-1", Server: "https://prod-1", Labels: map[string]string{"env": "prod", "project": "prod-apps"}},
	}}
	st := &state.State{Schema: state.Schema, Generation: 1, Children: []string{"web-dev-1", "web-prod-1"}, Revisions: map[string]json.RawMessage{id: body},
		Rollout: &state.Rollout{Revision: id, Status: state.RolloutProgressing, Phases: []state.PhaseState{{Name: "dev", Members: []string{"web-dev-1"}, Admitted: []string{"web-dev-1"}}}}}
	a := &Agent{inv: inv, renderer: render.New(4), opts: Options{Namespace: "argocd"}}
	p := &pass{plan: &plan.Plan{Rollout: "web", Namespace: "argocd", Revision: id, Body: body, Phases: s.Phases, Children: &plan.ChildEnv{Namespace: "argocd"}}}
	check := s.Phases[0].Checks[0]
	for _, tc := range []struct {
		name        string
		act         rollout.Action
		project, ns string
		err         string
	}{
		{"admitted", rollout.Action{Hook: check, Cluster: "web-dev-1", Phase: 0}, "dev-apps", "web-dev-1", ""},
		{"not admitted yet", rollout.Action{Hook: check, Cluster: "web-prod-1", Phase: 1}, "prod-apps", "web-prod-1", ""},
		{"no such child", rollout.Action{Hook: check, Cluster: "web-gone", Phase: 1}, "", "", "render child web-gone for its Job's project and namespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := a.childOf(p, st, tc.act)
			if d == nil || d.Project != tc.project || d.Namespace != tc.ns || (d.Err == nil) != (tc.err == "") || (d.Err != nil && !strings.Contains(d.Err.Error(), tc.err)) {
				t.Fatalf("got %+v", d)
			}
		})
	}
	perPhase := check
	perPhase.Type = "http"
	for _, act := range []rollout.Action{{Hook: check, Phase: 0}, {Hook: perPhase, Cluster: "web-dev-1"}} {
		if d := a.childOf(p, st, act); d != nil {
			t.Fatalf("%+v: %+v, want none", act, d)
		}
	}
}
