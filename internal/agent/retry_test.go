package agent

import (
	"context"
	"errors"
	"testing"
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/observe"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

// cutChild is liveChild admitted to r2 at admitted, its sync of that admission cut by an
// API server restart (EOF) at +20s, as attempt n (0: the first).
func cutChild(admitted time.Time, n int) *v1alpha1.Application {
	a := liveChild()
	a.Namespace = testNS
	a.Status.Sync.Status = v1alpha1.SyncStatusCodeOutOfSync
	op := a.Status.OperationState
	op.Phase, op.Message = synccommon.OperationFailed, `one or more objects failed to apply, reason: Patch "https://127.0.0.2:6443/api/v1/namespaces/dev-1/configmaps/x": EOF`
	op.Operation.Info = []*v1alpha1.Info{{Name: contract.OperationInfoAdmission, Value: rollout.Marker("r2", admitted)}}
	if n > 0 {
		op.Operation.Info = append(op.Operation.Info, &v1alpha1.Info{Name: contract.OperationInfoAttempt, Value: "2"})
	}
	return a
}

func TestASyncCutByARestartIsStartedAgainAfterItsBackoff(t *testing.T) {
	ctx := context.Background()
	admitted := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	child := cutChild(admitted, 0)
	act := rollout.Action{Kind: rollout.ActSyncAgain, Cluster: child.Name, Revision: "r2", Since: admitted}
	due, attempt, ok := rollout.Retry(observe.Child(child), "r2", admitted)
	if !ok || attempt != 2 {
		t.Fatalf("Retry = %s %d %v", due, attempt, ok)
	}
	f := newFakeAgent(t, []runtime.Object{child})
	p := &pass{plan: &plan.Plan{Rollout: "x"}, log: f.log}

	f.now = func() time.Time { return due.Add(-time.Second) }
	if err := f.syncAgain(ctx, p, []rollout.Action{act}); err != nil {
		t.Fatal(err)
	}
	if n := writes(f.argo.Actions(), "applications"); n != 0 {
		t.Fatalf("the live child is judged again: before its backoff nothing is started (%d writes)", n)
	}

	f.now = func() time.Time { return due }
	if err := f.syncAgain(ctx, p, []rollout.Action{act}); err != nil {
		t.Fatal(err)
	}
	op := getApp(t, f, child.Name).Operation
	if op == nil || observe.Marker(op.Info) != rollout.Marker("r2", admitted) || observe.Attempt(op.Info) != 2 || op.InitiatedBy.Username != "cmp-phase-agent" {
		t.Fatalf("the retry carries the admission's marker and its attempt: %+v", op)
	}
	if err := f.syncAgain(ctx, p, []rollout.Action{act}); err != nil {
		t.Fatal(err)
	}
	if n := writes(f.argo.Actions(), "applications"); n != 1 {
		t.Fatalf("a retry pending is never started twice: %d writes", n)
	}
}

func TestNoRetryWhereArgoCDRetriesOrTheFailureIsPermanent(t *testing.T) {
	ctx := context.Background()
	admitted := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	own := cutChild(admitted, 0)
	own.Status.OperationState.Operation.Retry = v1alpha1.RetryStrategy{Limit: 3} // the child's syncPolicy.retry
	invalid := cutChild(admitted, 0)
	invalid.Name = "x-dev-2"
	invalid.Status.OperationState.Message = `one or more objects failed to apply, reason: ConfigMap "x" is invalid: data[bad key]: Invalid value`
	f := newFakeAgent(t, []runtime.Object{own, invalid})
	f.now = func() time.Time { return admitted.Add(time.Hour) }
	p := &pass{plan: &plan.Plan{Rollout: "x"}, log: f.log}
	acts := []rollout.Action{{Kind: rollout.ActSyncAgain, Cluster: own.Name, Revision: "r2", Since: admitted},
		{Kind: rollout.ActSyncAgain, Cluster: invalid.Name, Revision: "r2", Since: admitted}}
	if err := f.syncAgain(ctx, p, acts); err != nil {
		t.Fatal(err)
	}
	if n := writes(f.argo.Actions(), "applications"); n != 0 {
		t.Fatalf("Argo CD's own retries and a permanent failure are never retried by the agent: %d writes", n)
	}
	if v, _ := rollout.Settle(observe.Child(own), "r2", admitted); v != rollout.Failed {
		t.Fatalf("Argo CD's final word is the verdict: %s", v)
	}
}

func TestObserveReadsTheAttemptAndArgoCDsRetry(t *testing.T) {
	admitted := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	a := cutChild(admitted, 2)
	a.Status.OperationState.Operation.Retry = v1alpha1.RetryStrategy{Limit: -1}
	o := observe.Child(a)
	if o.OperationAttempt != 2 || !o.ArgoCDRetries {
		t.Fatalf("%+v", o)
	}
	a.Status.OperationState.Operation.Info[1].Value = "bogus"
	if observe.Child(a).OperationAttempt != 0 {
		t.Fatal("an unreadable attempt counts as the first")
	}
}

// TestARefusedRetryDoesNotHoldTheOthers: an Update the API server refuses (a policy engine,
// say) is that child's; the next child is still retried and the pass goes on.
func TestARefusedRetryDoesNotHoldTheOthers(t *testing.T) {
	ctx := context.Background()
	admitted := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	refused, other := cutChild(admitted, 0), cutChild(admitted, 0)
	other.Name = "x-dev-2"
	f := newFakeAgent(t, []runtime.Object{refused, other})
	f.now = func() time.Time { return admitted.Add(time.Hour) }
	f.argo.PrependReactor("update", "applications", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.UpdateAction).GetObject().(*v1alpha1.Application).Name == refused.Name {
			return true, nil, apierrors.NewForbidden(v1alpha1.SchemeGroupVersion.WithResource("applications").GroupResource(), refused.Name, errors.New("denied by policy"))
		}
		return false, nil, nil
	})
	p := &pass{plan: &plan.Plan{Rollout: "x"}, log: f.log}
	acts := []rollout.Action{{Kind: rollout.ActSyncAgain, Cluster: refused.Name, Revision: "r2", Since: admitted},
		{Kind: rollout.ActSyncAgain, Cluster: other.Name, Revision: "r2", Since: admitted}}
	if err := f.syncAgain(ctx, p, acts); err != nil {
		t.Fatalf("a refused retry is no failure of the pass: %v", err)
	}
	if getApp(t, f, other.Name).Operation == nil {
		t.Fatal("the other child was not retried")
	}
}
