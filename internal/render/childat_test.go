package render_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestChildAt: a child the state admits renders at its revision byte for byte as Children
// renders it; one not admitted yet (a pre-hook's) renders at the rollout's revision all the
// same, with its project and destination; one the revision does not generate is an error.
func TestChildAt(t *testing.T) {
	dir := filepath.Join("testdata", "phase0-admitted")
	exprs := targets.NewCache(16)
	s, err := spec.Parse("spec.yaml", mustRead(t, filepath.Join(dir, "spec.yaml")), exprs)
	if err != nil {
		t.Fatal(err)
	}
	st, err := caseState(t, dir, s, exprs)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := inputs.InventoryFromFile(filepath.Join("testdata", "inventory.json"))
	if err != nil {
		t.Fatal(err)
	}
	rev := st.Rollout.Revision
	in := render.Input{Spec: &spec.Spec{Name: s.Name, Namespace: s.Namespace}, Inventory: inv, State: st, Env: render.Env{StateNamespace: "argocd"}}
	r := render.New(8)
	admitted, err := r.Children(in, []string{"guestbook-dev-1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.ChildAt(in, rev, st.Revisions[rev], "guestbook-dev-1", "dev")
	if err != nil || string(got) != string(admitted["guestbook-dev-1"]) {
		t.Fatalf("admitted child:\n got %s %v\nwant %s", got, err, admitted["guestbook-dev-1"])
	}
	got, err = r.ChildAt(in, rev, st.Revisions[rev], "guestbook-staging-1", "staging")
	var app v1alpha1.Application
	if err != nil || json.Unmarshal(got, &app) != nil || app.Spec.Project != "default" || app.Spec.Destination.Server != "https://10.0.1.1" {
		t.Fatalf("child not admitted yet: %s %v", got, err)
	}
	if _, err := r.ChildAt(in, rev, st.Revisions[rev], "guestbook-nowhere", "dev"); err == nil {
		t.Fatal("a child the revision does not generate rendered")
	}
}
