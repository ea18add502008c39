package observe

import (
	"testing"
	"time"

	"github.com/argoproj/argo-cd/gitops-engine/pkg/health"
	synccommon "github.com/argoproj/argo-cd/gitops-engine/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

func liveChild() *v1alpha1.Application {
	src := v1alpha1.ApplicationSource{RepoURL: "https://git.example.com/x.git", Path: "v2", TargetRevision: "HEAD"}
	dst := v1alpha1.ApplicationDestination{Server: "https://10.0.0.1", Namespace: "dev-1"}
	finished := metav1.NewTime(time.Date(2026, 11, 22, 10, 0, 20, 0, time.UTC))
	reconciled := metav1.NewTime(time.Date(2026, 11, 22, 10, 0, 30, 0, time.UTC))
	return &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: "x-dev-1", Annotations: map[string]string{contract.AnnotationRevision: "r2"}},
		Spec:       v1alpha1.ApplicationSpec{Source: &src, Destination: dst},
		Status: v1alpha1.ApplicationStatus{
			Sync:           v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeSynced, ComparedTo: v1alpha1.ComparedTo{Source: src, Destination: dst}},
			Health:         v1alpha1.AppHealthStatus{Status: health.HealthStatusHealthy},
			ReconciledAt:   &reconciled,
			OperationState: &v1alpha1.OperationState{Phase: synccommon.OperationSucceeded, FinishedAt: &finished},
		},
	}
}

func TestChild(t *testing.T) {
	o := Child(liveChild())
	if o.Revision != "r2" || !o.SpecCompared || o.SyncStatus != "Synced" || o.Health != "Healthy" || o.OperationPhase != "Succeeded" || o.OperationFinishedAt.IsZero() {
		t.Fatalf("%+v", o)
	}
	if v, why := rollout.Settle(o, "r2", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)); v != rollout.Done {
		t.Fatalf("a synced, healthy child on r2 is done: %s", why)
	}
	stale := liveChild()
	stale.Status.Sync.ComparedTo.Source.Path = "v1" // the controller compared the old spec
	if Child(stale).SpecCompared {
		t.Fatal("a comparison of the old spec is not a comparison of the new one")
	}
	byName := liveChild()
	byName.Spec.Destination = v1alpha1.ApplicationDestination{Name: "dev-1", Namespace: "dev-1"}
	byName.Status.Sync.ComparedTo.Destination = v1alpha1.ApplicationDestination{Name: "dev-1", Server: "https://10.0.0.1", Namespace: "dev-1"}
	if !Child(byName).SpecCompared {
		t.Fatal("a destination given by name matches on the name")
	}
}

// TestNeedsSyncOnlyForAdmittedChildrenThatDoNotSyncThemselves: what Child reads of a live
// child is what rollout.NeedsSync needs to tell whether the agent syncs it.
func TestNeedsSyncOnlyForAdmittedChildrenThatDoNotSyncThemselves(t *testing.T) {
	admitted := time.Date(2026, 11, 22, 10, 0, 10, 0, time.UTC)
	outOfSync := func() *v1alpha1.Application {
		a := liveChild()
		a.Status.Sync.Status = v1alpha1.SyncStatusCodeOutOfSync
		started := metav1.NewTime(admitted.Add(-time.Hour))
		a.Status.OperationState.StartedAt = started
		return a
	}
	cases := map[string]struct {
		change func(*v1alpha1.Application)
		want   bool
	}{
		"an OutOfSync child without automated sync is synced by the agent": {func(*v1alpha1.Application) {}, true},
		"a child with automated sync syncs itself": {func(a *v1alpha1.Application) {
			a.Spec.SyncPolicy = &v1alpha1.SyncPolicy{Automated: &v1alpha1.SyncPolicyAutomated{}}
		}, false},
		"an operation already present is never replaced": {func(a *v1alpha1.Application) { a.Operation = &v1alpha1.Operation{} }, false},
		"a sync started since admission is not started again": {func(a *v1alpha1.Application) {
			a.Status.OperationState.StartedAt = metav1.NewTime(admitted.Add(time.Second))
		}, false},
		"a child still on the old revision waits for the parent": {func(a *v1alpha1.Application) { a.Annotations[contract.AnnotationRevision] = "r1" }, false},
		"a comparison of the old spec is not a reason to sync":   {func(a *v1alpha1.Application) { a.Status.Sync.ComparedTo.Source.Path = "v1" }, false},
		"a Synced child needs nothing":                           {func(a *v1alpha1.Application) { a.Status.Sync.Status = v1alpha1.SyncStatusCodeSynced }, false},
		"a child never synced is synced":                         {func(a *v1alpha1.Application) { a.Status.OperationState = nil }, true},
		"the agent's own sync of this admission is not started again, though a controller clock behind ours dates it earlier": {func(a *v1alpha1.Application) {
			a.Status.OperationState.Operation.Info = []*v1alpha1.Info{{Name: contract.OperationInfoAdmission, Value: rollout.Marker("r2", admitted)}}
		}, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			a := outOfSync()
			c.change(a)
			if got := rollout.NeedsSync(Child(a), "r2", admitted); got != c.want {
				t.Fatalf("NeedsSync = %v", got)
			}
		})
	}
}
