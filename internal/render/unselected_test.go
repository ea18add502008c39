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

// TestOnlyTheRenderSaysAChildIsUnselected: a template (or its templatePatch) that writes
// cmp-phase.io/unselected does not reach the child: it would keep the agent from moving the
// child and from rebuilding a lost state with it.
func TestOnlyTheRenderSaysAChildIsUnselected(t *testing.T) {
	b, err := os.ReadFile("../spec/testdata/seeds/000-basic-progressive.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range [][2]string{
		{"      name: \"{{name}}\"\n", "      name: \"{{name}}\"\n      annotations: {cmp-phase.io/unselected: x}\n"},
		{"  template:\n", "  templatePatch: |\n    metadata:\n      annotations: {cmp-phase.io/unselected: x}\n  template:\n"},
	} {
		text := strings.Replace(string(b), edit[0], edit[1], 1)
		if text == string(b) {
			t.Fatalf("%q is not in the seed", edit[0])
		}
		s, err := spec.Parse("spec.yaml", []byte(text), targets.NewCache(8))
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		_, body, id, err := s.Revision()
		if err != nil {
			t.Fatal(err)
		}
		inv := &inventory.Inventory{Clusters: []inventory.Cluster{{Name: "dev-1", Server: "https://dev-1", Labels: map[string]string{"env": "development"}}}}
		subjects, err := New(4).Subjects(context.Background(), s.Name, id, body, inv)
		if err != nil || len(subjects) == 0 {
			t.Fatalf("%v %v", subjects, err)
		}
		st := &state.State{Schema: state.Schema, Generation: 1, Deployed: id, Children: []string{subjects[0].Key}, Revisions: map[string]json.RawMessage{id: body}}
		docs, err := New(4).Children(Input{Spec: s, Inventory: inv, State: st}, []string{subjects[0].Key})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(docs[subjects[0].Key]), contract.AnnotationUnselected) {
			t.Fatalf("the template's annotation reached the child: %s", docs[subjects[0].Key])
		}
	}
}
