package steer

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// renderedPlan is the plan ConfigMap the renderer emits for render's spec-v2 testdata.
func renderedPlan(t *testing.T) *corev1.ConfigMap {
	t.Helper()
	b, err := os.ReadFile("../render/testdata/spec-v2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Parse("spec-v2.yaml", b, targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := inputs.InventoryFromFile("../render/testdata/inventory.json")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := render.New(1).Render(render.Input{Spec: sp, Inventory: inv, Env: render.Env{StateNamespace: ns, AppName: "guestbook-parent"}})
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := json.Unmarshal(docs[0], &cm); err != nil || cm.Kind != "ConfigMap" {
		t.Fatalf("the first document is the plan: %v %.100s", err, docs[0])
	}
	return &cm
}

func TestOpenReadsThePlansPhases(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, fake.NewClientset().CoreV1(), ns, "guestbook", "alice", "why")
	if err == nil || !strings.Contains(err.Error(), "rollout guestbook: no plan in argocd (is the parent synced?)") {
		t.Fatalf("no plan: %v", err)
	}
	r, err := Open(ctx, fake.NewClientset(renderedPlan(t)).CoreV1(), ns, "guestbook", "alice", "why")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Phases, []string{"dev", "staging", "prod"}) || r.By != "alice" || r.Reason != "why" || r.Name != "guestbook" {
		t.Fatalf("%+v", r)
	}
}
