package render_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

func parseFile(t *testing.T, f string) *spec.Spec {
	t.Helper()
	s, err := spec.Parse(f, mustRead(t, f), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSubjectsFeedTheSnapshot: the golden spec's phases select the right children from
// the subjects the renderer derives (cluster labels, values, expr, app labels).
func TestSubjectsFeedTheSnapshot(t *testing.T) {
	s := parseFile(t, "testdata/spec-v2.yaml")
	_, body, id, _ := s.Revision()
	inv, err := inputs.InventoryFromFile("testdata/inventory.json")
	if err != nil {
		t.Fatal(err)
	}
	subjects, err := render.New(2).Subjects(context.Background(), s.Name, id, body, inv)
	if err != nil {
		t.Fatal(err)
	}
	members, err := rollout.Snapshot(s.Phases, subjects)
	if err != nil {
		t.Fatal(err)
	}
	want := "[[guestbook-dev-1 guestbook-dev-2] [guestbook-staging-1 guestbook-staging-2] [guestbook-prod-1 guestbook-prod-2]]"
	if fmt.Sprint(members) != want {
		t.Fatalf("members %v", members)
	}
	if v := subjects[0].Values["chart"]; v != "2.0.0" {
		t.Fatalf("generator values reach targets: %+v", subjects[0])
	}
	sync := parseFile(t, "../spec/testdata/seeds/003-guestbook-rolling-sync.yaml")
	_, body, id, _ = sync.Revision()
	subjects, _ = render.New(2).Subjects(context.Background(), sync.Name, id, body, inv)
	members, _ = rollout.Snapshot(sync.Phases, subjects)
	if fmt.Sprint(members) != "[[engineering-dev-guestbook] [engineering-qa-guestbook] [engineering-prod-guestbook]]" {
		t.Fatalf("RollingSync steps select by the Applications' labels: %v", members)
	}
}

// TestOnlyChangedChildrenTakePart: a child whose rendering is the same at the new revision
// is not part of the rollout; a child running nothing yet is.
func TestOnlyChangedChildrenTakePart(t *testing.T) {
	v1, v2 := parseFile(t, "testdata/spec-v1.yaml"), parseFile(t, "testdata/spec-v2.yaml")
	_, b1, r1, _ := v1.Revision()
	_, b2, r2, _ := v2.Revision()
	inv, _ := inputs.InventoryFromFile("testdata/inventory.json")
	st := &state.State{Schema: state.Schema, Generation: 1, Deployed: r1, Children: []string{"guestbook-dev-1", "guestbook-dev-2"},
		Revisions: map[string]json.RawMessage{r1: b1}}
	changed, err := changedOf(t, render.Input{Spec: v2, Inventory: inv, State: st}, r2, b2)
	if err != nil {
		t.Fatal(err)
	}
	if !changed["guestbook-dev-1"] || !changed["guestbook-prod-1"] || len(changed) != 6 {
		t.Fatalf("chart 1.0.0 -> 2.0.0 changes every child: %v", changed)
	}
	// The same template with a phase change only: the revision is identical, nothing moves.
	same := strings.Replace(string(mustRead(t, "testdata/spec-v1.yaml")), "waitDuration: 1m", "waitDuration: 9m", 1)
	s3, err := spec.Parse("spec.yaml", []byte(same), targets.NewCache(4))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, r3, _ := s3.Revision(); r3 != r1 {
		t.Fatal("phases are not part of the revision")
	}
	changed, _ = changedOf(t, render.Input{Spec: v1, Inventory: inv, State: st}, r1, b1)
	if changed["guestbook-dev-1"] || !changed["guestbook-prod-1"] {
		t.Fatalf("deployed children on the same revision do not change; undeployed ones do: %v", changed)
	}
}

func TestANewRevisionThatRendersTheSameChangesNobody(t *testing.T) {
	v2 := parseFile(t, "testdata/spec-v2.yaml")
	_, b2, r2, _ := v2.Revision()
	extra := strings.Replace(string(mustRead(t, "testdata/spec-v2.yaml")), `chart: "2.0.0"`, "chart: \"2.0.0\"\n        unused: x", 1)
	v2b, err := spec.Parse("spec.yaml", []byte(extra), targets.NewCache(4))
	if err != nil {
		t.Fatal(err)
	}
	_, bb, rb, _ := v2b.Revision()
	if rb == r2 {
		t.Fatal("generator values are part of the revision")
	}
	inv, _ := inputs.InventoryFromFile("testdata/inventory.json")
	all := []string{"guestbook-dev-1", "guestbook-dev-2", "guestbook-prod-1", "guestbook-prod-2", "guestbook-staging-1", "guestbook-staging-2"}
	st := &state.State{Schema: state.Schema, Generation: 1, Deployed: r2, Children: all, Revisions: map[string]json.RawMessage{r2: b2}}
	changed, err := changedOf(t, render.Input{Spec: v2b, Inventory: inv, State: st}, rb, bb)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range all {
		if changed[c] {
			t.Fatalf("%s renders the same but is marked changed", c)
		}
	}
}

// changedOf is what the agent does: the revision's subjects, then which of them change.
func changedOf(t *testing.T, in render.Input, rev string, body []byte) (map[string]bool, error) {
	t.Helper()
	r := render.New(4)
	subjects, err := r.Subjects(context.Background(), in.Spec.Name, rev, body, in.Inventory)
	if err != nil {
		return nil, err
	}
	return r.Changed(in, rev, body, subjects)
}
