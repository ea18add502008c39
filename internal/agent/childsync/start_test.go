package childsync

import (
	"context"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

// TestSyncStartsOnlyWhenNoOperationIsPresent.
func TestSyncStartsOnlyWhenNoOperationIsPresent(t *testing.T) {
	ctx := context.Background()
	child := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "web-dev-1", Namespace: testNS},
		Spec: v1alpha1.ApplicationSpec{SyncPolicy: &v1alpha1.SyncPolicy{SyncOptions: v1alpha1.SyncOptions{"CreateNamespace=true"}}}}
	c, log, _ := fakeApps(child)
	if started, err := Start(ctx, c.ArgoprojV1alpha1().Applications(testNS), log, "web-dev-1"); err != nil || !started {
		t.Fatal(started, err)
	}
	op := getApp(t, c, "web-dev-1").Operation
	if op == nil || op.Sync == nil || len(op.Sync.SyncOptions) != 1 || op.InitiatedBy.Username != "cmp-phase-agent" {
		t.Fatalf("operation %+v", op)
	}

	pending := child.DeepCopy()
	pending.Operation = &v1alpha1.Operation{Sync: &v1alpha1.SyncOperation{Revision: "by-a-person"}}
	c, log, _ = fakeApps(pending)
	if started, err := Start(ctx, c.ArgoprojV1alpha1().Applications(testNS), log, "web-dev-1"); err != nil || started {
		t.Fatal("a pending operation counts as started", err)
	}
	if n := writes(c.Actions()); n != 0 || getApp(t, c, "web-dev-1").Operation.Sync.Revision != "by-a-person" {
		t.Fatalf("a pending operation is never replaced: %d writes", n)
	}
}

// TestStartAllStartsTheDecidedSyncsOnly: the children the engine named are synced, in
// order, one whose operation is present already is not counted; no other child is written.
func TestStartAllStartsTheDecidedSyncsOnly(t *testing.T) {
	ctx := context.Background()
	admitted := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	app := func(name string) *v1alpha1.Application {
		a := cutChild(admitted, 0)
		a.Name, a.Status.OperationState = name, nil
		return a
	}
	busy := app("web-dev-3")
	busy.Operation = &v1alpha1.Operation{Sync: &v1alpha1.SyncOperation{Revision: "by-a-person"}}
	c, log, _ := fakeApps(app("web-dev-1"), app("web-dev-2"), busy)
	syncs := []rollout.Sync{{Child: "web-dev-1"}, {Child: "web-dev-3"}}
	if n, err := StartAll(ctx, c.ArgoprojV1alpha1().Applications(testNS), log, syncs); err != nil || n != 1 {
		t.Fatalf("started %d: %v", n, err)
	}
	if getApp(t, c, "web-dev-1").Operation == nil || getApp(t, c, "web-dev-2").Operation != nil || writes(c.Actions()) != 1 {
		t.Fatalf("writes %d", writes(c.Actions()))
	}
	if n, err := StartAll(ctx, c.ArgoprojV1alpha1().Applications(testNS), log, nil); err != nil || n != 0 {
		t.Fatalf("nothing decided, nothing started: %d %v", n, err)
	}
}
