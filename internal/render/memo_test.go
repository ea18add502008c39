package render_test

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestDecisionAnswersFollowTheInventory: one renderer asked pass after pass (as the agent
// does) answers Subjects and Changed as a fresh renderer would — the same inventory object
// from memory, a new one (a cluster gone, a namespace changed) afresh.
func TestDecisionAnswersFollowTheInventory(t *testing.T) {
	v1, v2 := parseFile(t, "testdata/spec-v1.yaml"), parseFile(t, "testdata/spec-v2.yaml")
	_, b1, r1, _ := v1.Revision()
	_, b2, r2, _ := v2.Revision()
	inv, err := inputs.InventoryFromFile("testdata/inventory.json")
	if err != nil {
		t.Fatal(err)
	}
	fewer := &inventory.Inventory{Clusters: inv.Clusters[1:]}
	st := &state.State{Schema: state.Schema, Generation: 1, Deployed: r1, Children: []string{"guestbook-dev-1", "guestbook-dev-2"},
		Revisions: map[string]json.RawMessage{r1: b1}}
	kept := render.New(4)
	passes := []render.Input{
		{Spec: v2, Inventory: inv, State: st},
		{Spec: v2, Inventory: inv, State: st},
		{Spec: v2, Inventory: fewer, State: st},
		{Spec: v2, Inventory: fewer, State: st, Env: render.Env{AppNamespace: "elsewhere"}},
	}
	for i, in := range passes {
		gotSubjects, err := kept.Subjects(context.Background(), in.Spec.Name, r2, b2, in.Inventory)
		if err != nil {
			t.Fatal(err)
		}
		gotChanged, err := kept.Changed(in, r2, b2, gotSubjects)
		if err != nil {
			t.Fatal(err)
		}
		fresh := render.New(4)
		wantSubjects, _ := fresh.Subjects(context.Background(), in.Spec.Name, r2, b2, in.Inventory)
		wantChanged, _ := fresh.Changed(in, r2, b2, wantSubjects)
		if !reflect.DeepEqual(gotSubjects, wantSubjects) || !maps.Equal(gotChanged, wantChanged) {
			t.Fatalf("pass %d: remembered answers differ from fresh ones:\n%v\n%v", i, gotChanged, wantChanged)
		}
		gotSubjects[0].Key = "changed-by-the-caller" // the memo hands out copies
	}
	if s, _ := kept.Subjects(context.Background(), v2.Name, r2, b2, fewer); s[0].Key == "changed-by-the-caller" {
		t.Fatal("a caller's change reached the memo")
	}
}
