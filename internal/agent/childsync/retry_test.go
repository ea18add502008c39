package childsync

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/gitops-engine/pkg/health"
	synccommon "github.com/argoproj/argo-cd/gitops-engine/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argofake "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned/fake"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/agent/observe"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

const testNS = "argocd"

// cutChild is a child admitted to r2 at admitted, Synced and Healthy on r2 before, its
// sync of that admission cut by an API server restart (EOF) at +20s, as attempt n (0: the
// first).
func cutChild(admitted time.Time, n int) *v1alpha1.Application {
	src := v1alpha1.ApplicationSource{RepoURL: "https://git.example.com/x.git", Path: "v2", TargetRevision: "HEAD"}
	dst := v1alpha1.ApplicationDestination{Server: "https://10.0.0.1", Namespace: "dev-1"}
	finished := metav1.NewTime(time.Date(2026, 11, 22, 10, 0, 20, 0, time.UTC))
	reconciled := metav1.NewTime(time.Date(2026, 11, 22, 10, 0, 30, 0, time.UTC))
	a := &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: "x-dev-1", Namespace: testNS, Annotations: map[string]string{contract.AnnotationRevision: "r2"}},
		Spec:       v1alpha1.ApplicationSpec{Source: &src, Destination: dst},
		Status: v1alpha1.ApplicationStatus{
			Sync:         v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeOutOfSync, ComparedTo: v1alpha1.ComparedTo{Source: src, Destination: dst}},
			Health:       v1alpha1.AppHealthStatus{Status: health.HealthStatusHealthy},
			ReconciledAt: &reconciled,
			OperationState: &v1alpha1.OperationState{Phase: synccommon.OperationFailed, FinishedAt: &finished,
				Message: `one or more objects failed to apply, reason: Patch "https://127.0.0.2:6443/api/v1/namespaces/dev-1/configmaps/x": EOF`},
		},
	}
	op := a.Status.OperationState
	op.Operation.Info = []*v1alpha1.Info{{Name: contract.OperationInfoAdmission, Value: rollout.Marker("r2", admitted)}}
	if n > 0 {
		op.Operation.Info = append(op.Operation.Info, &v1alpha1.Info{Name: contract.OperationInfoAttempt, Value: "2"})
	}
	return a
}

// fakeApps serves objs on a fake API server; its Applications client, the clientset (to
// count its writes) and a logger to a buffer.
func fakeApps(objs ...runtime.Object) (*argofake.Clientset, *slog.Logger, *bytes.Buffer) {
	var logs bytes.Buffer
	return argofake.NewSimpleClientset(objs...), slog.New(slog.NewTextHandler(&logs, nil)), &logs
}

// writes counts the create, update and patch calls a fake clientset saw on Applications.
func writes(actions []k8stesting.Action) int {
	n := 0
	for _, a := range actions {
		switch a.GetVerb() {
		case "create", "update", "patch":
			if a.GetResource().Resource == "applications" {
				n++
			}
		}
	}
	return n
}

func getApp(t *testing.T, c *argofake.Clientset, name string) *v1alpha1.Application {
	t.Helper()
	app, err := c.ArgoprojV1alpha1().Applications(testNS).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return app
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
	c, log, logs := fakeApps(child)
	apps := c.ArgoprojV1alpha1().Applications(testNS)

	if n := RetryAll(ctx, apps, func() time.Time { return due.Add(-time.Second) }, log, []rollout.Action{act}); n != 0 || writes(c.Actions()) != 0 {
		t.Fatalf("the live child is judged again: before its backoff nothing is started (%d retried, %d writes)", n, writes(c.Actions()))
	}
	if n := RetryAll(ctx, apps, func() time.Time { return due }, log, []rollout.Action{act}); n != 1 {
		t.Fatalf("retried %d", n)
	}
	op := getApp(t, c, child.Name).Operation
	if op == nil || observe.Marker(op.Info) != rollout.Marker("r2", admitted) || observe.Attempt(op.Info) != 2 || op.InitiatedBy.Username != "cmp-phase-agent" {
		t.Fatalf("the retry carries the admission's marker and its attempt: %+v", op)
	}
	if !bytes.Contains(logs.Bytes(), []byte(`"sync retried" child=x-dev-1 attempt=2 revision=r2`)) {
		t.Fatalf("logs: %s", logs)
	}
	if n := RetryAll(ctx, apps, func() time.Time { return due }, log, []rollout.Action{act}); n != 0 || writes(c.Actions()) != 1 {
		t.Fatalf("a retry pending is never started twice: %d writes", writes(c.Actions()))
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
	c, log, _ := fakeApps(own, invalid)
	acts := []rollout.Action{{Kind: rollout.ActSyncAgain, Cluster: own.Name, Revision: "r2", Since: admitted},
		{Kind: rollout.ActSyncAgain, Cluster: invalid.Name, Revision: "r2", Since: admitted}}
	RetryAll(ctx, c.ArgoprojV1alpha1().Applications(testNS), func() time.Time { return admitted.Add(time.Hour) }, log, acts)
	if n := writes(c.Actions()); n != 0 {
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
// say) is that child's: logged, and the next child is still retried.
func TestARefusedRetryDoesNotHoldTheOthers(t *testing.T) {
	ctx := context.Background()
	admitted := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	refused, other := cutChild(admitted, 0), cutChild(admitted, 0)
	other.Name = "x-dev-2"
	c, log, logs := fakeApps(refused, other)
	c.PrependReactor("update", "applications", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.UpdateAction).GetObject().(*v1alpha1.Application).Name == refused.Name {
			return true, nil, apierrors.NewForbidden(v1alpha1.SchemeGroupVersion.WithResource("applications").GroupResource(), refused.Name, errors.New("denied by policy"))
		}
		return false, nil, nil
	})
	acts := []rollout.Action{{Kind: rollout.ActSyncAgain, Cluster: refused.Name, Revision: "r2", Since: admitted},
		{Kind: rollout.ActSyncAgain, Cluster: other.Name, Revision: "r2", Since: admitted}}
	if n := RetryAll(ctx, c.ArgoprojV1alpha1().Applications(testNS), func() time.Time { return admitted.Add(time.Hour) }, log, acts); n != 1 {
		t.Fatalf("retried %d, want the other one", n)
	}
	if getApp(t, c, other.Name).Operation == nil {
		t.Fatal("the other child was not retried")
	}
	if !bytes.Contains(logs.Bytes(), []byte(`"sync not retried" child=x-dev-1`)) {
		t.Fatalf("the refusal is not logged: %s", logs)
	}
}
