package render

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// coexistWithInCluster is seed 000's coexistence example over a fleet with Argo CD's
// implicit, unlabelled in-cluster: its child's env label renders "{{metadata.labels.env}}".
// steps: its RollingSync steps alone (no generator phases), which render unselected
// children with automated sync off.
func coexistWithInCluster(t *testing.T, steps bool) (*spec.Spec, *inventory.Inventory) {
	t.Helper()
	b, err := os.ReadFile("../spec/testdata/compose/000-coexist.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if steps {
		text := string(b)
		from, to := strings.Index(text, "    deploymentStrategy:"), strings.Index(text, "  template:")
		b = []byte(text[:from] + text[to:])
	}
	s, err := spec.Parse("coexist.yaml", b, targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	inv := &inventory.Inventory{Clusters: []inventory.Cluster{
		{Name: "dev-1", Server: "https://dev-1", Labels: map[string]string{"env": "dev", "canary": "true"}},
		{Name: "in-cluster", Server: "https://kubernetes.default.svc"},
	}}
	return s, inv
}

// TestSeed000sCoexistenceExampleTakesAnUnlabelledInCluster: with the generator's phases,
// the in-cluster child no phase targets gets nothing, and validate's dry run passes.
func TestSeed000sCoexistenceExampleTakesAnUnlabelledInCluster(t *testing.T) {
	s, inv := coexistWithInCluster(t, false)
	if leftOut, err := CheckReport(s, inv); err != nil || len(leftOut) != 0 {
		t.Fatalf("validate's dry run: left out %v, err %v", leftOut, err)
	}
}

// TestAnUnselectedChildThatCannotRenderIsLeftOutNotFatal: with RollingSync steps, the
// unselected, never-deployed in-cluster child is left out of the render and named in the
// plan (leftout.json) with the reason, while dev-1's child renders; validate's dry run
// reports it the same way. Once that child is deployed, its failure fails the render closed.
func TestAnUnselectedChildThatCannotRenderIsLeftOutNotFatal(t *testing.T) {
	s, inv := coexistWithInCluster(t, true)
	leftOut, err := CheckReport(s, inv)
	if err != nil || !strings.Contains(leftOut["in-cluster-app"], "template.metadata.labels.env renders") || len(leftOut) != 1 {
		t.Fatalf("validate's dry run: left out %v, err %v", leftOut, err)
	}
	_, body, id, err := s.Revision()
	if err != nil {
		t.Fatal(err)
	}
	st := &state.State{Schema: state.Schema, Generation: 1, Deployed: id, Children: []string{"dev-1-app"}, Revisions: map[string]json.RawMessage{id: body}}
	in := Input{Spec: s, Inventory: inv, State: st, Env: Env{StateNamespace: contract.DefaultNamespace, PhaseGen: 1}}
	docs, err := New(4).Render(in)
	if err != nil {
		t.Fatalf("one unselected child blocks every cluster: %v", err)
	}
	if len(docs) != 2 || !strings.Contains(string(docs[1]), `"name":"dev-1-app"`) {
		t.Fatalf("want the plan and dev-1-app, got %d docs", len(docs))
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(docs[0], &cm); err != nil || !strings.Contains(cm.Data[contract.PlanLeftOutKey], "in-cluster-app") {
		t.Fatalf("the plan names the left-out child: %v %v", cm.Data[contract.PlanLeftOutKey], err)
	}
	st.Children = []string{"dev-1-app", "in-cluster-app"}
	if _, err := New(4).Render(in); err == nil || !strings.Contains(err.Error(), "in-cluster-app") {
		t.Fatalf("a deployed child that cannot render still fails closed: %v", err)
	}
}

// TestSubjectsCarryTheRevisionAsSeed: every subject of a revision reads that revision's id
// as seed, so order: shuffle is the same in the sidecar, the agent and plan.
func TestSubjectsCarryTheRevisionAsSeed(t *testing.T) {
	s, inv := coexistWithInCluster(t, false)
	_, body, id, err := s.Revision()
	if err != nil {
		t.Fatal(err)
	}
	subjects, err := New(1).Subjects(t.Context(), s.Name, id, body, inv)
	if err != nil || len(subjects) != 2 {
		t.Fatalf("%v %v", subjects, err)
	}
	for _, c := range subjects {
		if c.Seed != id {
			t.Fatalf("%s: seed %q, want the revision %q", c.Key, c.Seed, id)
		}
	}
}

// TestOnlyAChildsOwnFailureLeavesItOut: a render cancelled (or past its deadline) while it
// renders the unselected children fails whole; it never leaves them out as if their
// templates had failed.
func TestOnlyAChildsOwnFailureLeavesItOut(t *testing.T) {
	s, inv := coexistWithInCluster(t, true)
	_, body, id, err := s.Revision()
	if err != nil {
		t.Fatal(err)
	}
	r := New(4)
	if _, err := r.Subjects(t.Context(), s.Name, id, body, inv); err != nil { // memoized: the cancel meets the children
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	st := &state.State{Schema: state.Schema, Generation: 1, Deployed: id, Revisions: map[string]json.RawMessage{id: body}}
	docs, err := r.Render(Input{Spec: s, Inventory: inv, State: st, Env: Env{StateNamespace: contract.DefaultNamespace, PhaseGen: 1}, Ctx: ctx})
	if err == nil {
		t.Fatalf("a cancelled render gave %d documents", len(docs))
	}
}

// TestALiveUnselectedChildThatCannotRenderFailsClosed: once the state records the
// unselected in-cluster child as live (it rendered before), its template failing fails the
// render, naming the fix, instead of leaving it out.
func TestALiveUnselectedChildThatCannotRenderFailsClosed(t *testing.T) {
	s, inv := coexistWithInCluster(t, true)
	_, body, id, err := s.Revision()
	if err != nil {
		t.Fatal(err)
	}
	st := &state.State{Schema: state.Schema, Generation: 1, Deployed: id, Children: []string{"dev-1-app"}, Revisions: map[string]json.RawMessage{id: body},
		Unselected: []string{"in-cluster-app"}}
	in := Input{Spec: s, Inventory: inv, State: st, Env: Env{StateNamespace: contract.DefaultNamespace, PhaseGen: 1}}
	if _, err := New(4).Render(in); err == nil || !strings.Contains(err.Error(), "in-cluster-app") || !strings.Contains(err.Error(), "the child exists, so it cannot be left out") {
		t.Fatalf("a live unselected child that cannot render: %v", err)
	}
}
