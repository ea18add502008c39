package childsync

import (
	"context"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/state"
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

// TestStartWaitingSyncsOnlyWaitingChildrenThatNeedIt: of an active rollout's admitted
// children, those waiting whose live Application does not sync itself; a done one, one
// not live, and every child of an ended rollout are left alone.
func TestStartWaitingSyncsOnlyWaitingChildrenThatNeedIt(t *testing.T) {
	ctx := context.Background()
	admitted := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	app := func(name string) *v1alpha1.Application { // admitted to r2, compared OutOfSync, never synced
		a := cutChild(admitted, 0)
		a.Name, a.Status.OperationState = name, nil
		return a
	}
	waiting, done := app("web-dev-1"), app("web-dev-2")
	st := &state.State{Rollout: &state.Rollout{Revision: "r2", Status: state.RolloutProgressing, Phases: []state.PhaseState{{Name: "dev",
		Admitted: []string{"web-dev-1", "web-dev-2", "web-dev-3"}, Clusters: map[string]state.ClusterState{
			"web-dev-1": {Status: state.ClusterWaiting, AdmittedAt: admitted}, "web-dev-2": {Status: state.ClusterDone, AdmittedAt: admitted},
			"web-dev-3": {Status: state.ClusterWaiting, AdmittedAt: admitted}}}}}}
	live := map[string]*v1alpha1.Application{waiting.Name: waiting, done.Name: done}
	c, log, _ := fakeApps(waiting, done)
	if n, err := StartWaiting(ctx, c.ArgoprojV1alpha1().Applications(testNS), log, st, live); err != nil || n != 1 {
		t.Fatalf("started %d: %v", n, err)
	}
	if getApp(t, c, waiting.Name).Operation == nil || getApp(t, c, done.Name).Operation != nil || writes(c.Actions()) != 1 {
		t.Fatalf("writes %d", writes(c.Actions()))
	}
	st.Rollout.Status = state.RolloutCompleted
	c, log, _ = fakeApps(app("web-dev-1"))
	if n, err := StartWaiting(ctx, c.ArgoprojV1alpha1().Applications(testNS), log, st, live); err != nil || n != 0 || writes(c.Actions()) != 0 {
		t.Fatalf("an ended rollout syncs nothing: %v, %d writes", err, writes(c.Actions()))
	}
}
