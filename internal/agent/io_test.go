package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/agent/failure"
	"github.com/cmp-phase/cmp-phase/internal/agent/observe"
	"github.com/cmp-phase/cmp-phase/internal/agent/rerender"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

func parentApp(env ...*v1alpha1.EnvEntry) *v1alpha1.Application {
	return &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "web-parent", Namespace: testNS},
		Spec: v1alpha1.ApplicationSpec{Source: &v1alpha1.ApplicationSource{RepoURL: "https://git/x", Path: "web",
			Plugin: &v1alpha1.ApplicationSourcePlugin{Name: contract.PluginName, Env: env}}}}
}

func getApp(t *testing.T, f *fakeAgent, name string) *v1alpha1.Application {
	t.Helper()
	app, err := f.argo.ArgoprojV1alpha1().Applications(testNS).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// TestSetPhaseGenKeepsTheOtherEntriesAndWritesOnlyAChange.
func TestSetPhaseGenKeepsTheOtherEntriesAndWritesOnlyAChange(t *testing.T) {
	ctx := context.Background()
	f := newFakeAgent(t, []runtime.Object{parentApp(&v1alpha1.EnvEntry{Name: "SYNC_OPTIONS", Value: "Prune=false"}, &v1alpha1.EnvEntry{Name: contract.EnvPhaseGen, Value: "3"})})
	if err := rerender.SetPhaseGen(ctx, f.argo, testNS, "web-parent", 4); err != nil {
		t.Fatal(err)
	}
	env := getApp(t, f, "web-parent").Spec.Source.Plugin.Env
	if len(env) != 2 || env[0].Name != "SYNC_OPTIONS" || env[0].Value != "Prune=false" || env[1].Value != "4" {
		t.Fatalf("env %v", env)
	}
	f.argo.ClearActions()
	if err := rerender.SetPhaseGen(ctx, f.argo, testNS, "web-parent", 4); err != nil {
		t.Fatal(err)
	}
	if n := writes(f.argo.Actions(), "applications"); n != 0 {
		t.Fatalf("the value is there: %d writes", n)
	}

	f = newFakeAgent(t, []runtime.Object{parentApp(&v1alpha1.EnvEntry{Name: "SYNC_OPTIONS", Value: "Prune=false"})})
	if err := rerender.SetPhaseGen(ctx, f.argo, testNS, "web-parent", 1); err != nil {
		t.Fatal(err)
	}
	if env := getApp(t, f, "web-parent").Spec.Source.Plugin.Env; len(env) != 2 || env[1].Name != contract.EnvPhaseGen || env[1].Value != "1" {
		t.Fatalf("a first PHASE_GEN is added: %v", env)
	}

	noPlugin := parentApp()
	noPlugin.Spec.Source.Plugin = nil
	f = newFakeAgent(t, []runtime.Object{noPlugin})
	err := rerender.SetPhaseGen(ctx, f.argo, testNS, "web-parent", 1)
	if failure.PolicyOf(err).Kind != failure.Invalid || !strings.Contains(err.Error(), "(fix: set spec.source.plugin.name: "+contract.PluginName+")") {
		t.Fatalf("a parent without the plugin is invalid input: %v", err)
	}
}

// movedChild is a live child on r1 and its render on r2.
func movedChild() (live, want *v1alpha1.Application) {
	live = &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: "web-prod-1", Namespace: testNS, ResourceVersion: "41",
			Labels:      map[string]string{contract.LabelPhase: "", "team": "web"},
			Annotations: map[string]string{"argocd.argoproj.io/tracking-id": "fleet:argoproj.io/Application:argocd/web-prod-1", contract.AnnotationRevision: "r1"}},
		Spec: v1alpha1.ApplicationSpec{Project: "default",
			Source:      &v1alpha1.ApplicationSource{RepoURL: "https://git/x", Path: "web", TargetRevision: "aaaa", Helm: &v1alpha1.ApplicationSourceHelm{ValueFiles: []string{"old.yaml"}}},
			Destination: v1alpha1.ApplicationDestination{Server: "https://prod-1", Namespace: "web"}},
	}
	want = live.DeepCopy()
	want.ResourceVersion = ""
	want.Labels = map[string]string{contract.LabelPhase: "prod"}
	want.Annotations = map[string]string{contract.AnnotationRevision: "r2"}
	want.Spec.Source.TargetRevision, want.Spec.Source.Helm = "bbbb", nil
	return live, want
}

// TestMoveGivesTheChildItsRenderAndKeepsTracking applies a move to a fake Application.
func TestMoveGivesTheChildItsRenderAndKeepsTracking(t *testing.T) {
	live, want := movedChild()
	doc, _ := json.Marshal(want)
	f := newFakeAgent(t, []runtime.Object{live})
	if err := f.move(context.Background(), live, doc, "r2@2026-11-25T12:00:00Z"); err != nil {
		t.Fatal(err)
	}
	got := getApp(t, f, "web-prod-1")
	if !got.Spec.Source.Equals(want.Spec.Source) || got.Spec.Destination != want.Spec.Destination {
		t.Errorf("spec %+v, want %+v", got.Spec.Source, want.Spec.Source)
	}
	if got.Annotations["argocd.argoproj.io/tracking-id"] == "" || got.Annotations[contract.AnnotationRevision] != "r2" || got.Labels[contract.LabelPhase] != "prod" || got.Labels["team"] != "web" {
		t.Errorf("metadata: labels %v annotations %v", got.Labels, got.Annotations)
	}
	if got.Operation == nil || observe.Marker(got.Operation.Info) != "r2@2026-11-25T12:00:00Z" {
		t.Errorf("no marked sync: %+v", got.Operation)
	}

	// a child changed since the cache read it is not moved: the next pass decides again
	f = newFakeAgent(t, []runtime.Object{live})
	f.argo.PrependReactor("patch", "applications", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(v1alpha1.SchemeGroupVersion.WithResource("applications").GroupResource(), live.Name, errors.New("changed"))
	})
	if err := f.move(context.Background(), live, doc, "r2@x"); !errors.Is(err, errMoved) {
		t.Fatalf("a conflict is no failure: %v", err)
	}
}

// TestSyncAgainRetriesOnTheAgentsClockAndCountsIt: the agent's retries of transient sync
// failures (childsync.RetryAll) are judged at the agent's clock, and each started is
// counted for the rollout.
func TestSyncAgainRetriesOnTheAgentsClockAndCountsIt(t *testing.T) {
	admitted := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	child := liveChild()
	child.Namespace = testNS
	child.Status.Sync.Status = v1alpha1.SyncStatusCodeOutOfSync
	op := child.Status.OperationState
	op.Phase, op.Message = synccommon.OperationFailed, `one or more objects failed to apply, reason: Patch "https://127.0.0.2:6443/api/v1/namespaces/dev-1/configmaps/x": EOF`
	op.Operation.Info = []*v1alpha1.Info{{Name: contract.OperationInfoAdmission, Value: rollout.Marker("r2", admitted)}}
	due, _, ok := rollout.Retry(observe.Child(child), "r2", admitted)
	if !ok {
		t.Fatal("not a retry")
	}
	f := newFakeAgent(t, []runtime.Object{child})
	p := &pass{plan: &plan.Plan{Rollout: "x"}, log: f.log}
	acts := []rollout.Action{{Kind: rollout.ActSyncAgain, Cluster: child.Name, Revision: "r2", Since: admitted}}
	for _, tc := range []struct {
		now  time.Time
		want float64
	}{{due.Add(-time.Second), 0}, {due, 1}} {
		f.now = func() time.Time { return tc.now }
		if err := f.syncAgain(context.Background(), p, acts); err != nil {
			t.Fatal(err)
		}
		if got := testutil.ToFloat64(f.metrics.Retries.WithLabelValues("x")); got != tc.want {
			t.Fatalf("at %s: %v retries counted, want %v", tc.now, got, tc.want)
		}
		if got := testutil.ToFloat64(f.metrics.Syncs.WithLabelValues("x")); got != tc.want {
			t.Fatalf("at %s: %v syncs counted, want %v (a retry is a sync started)", tc.now, got, tc.want)
		}
	}
}

// TestStartedSyncsAreCounted: cmp_phase_syncs_total counts each sync the agent started of
// those the engine decided (Decision.Syncs), and not again while its operation runs.
func TestStartedSyncsAreCounted(t *testing.T) {
	child := liveChild()
	child.Namespace = testNS
	child.Status.Sync.Status, child.Status.OperationState = v1alpha1.SyncStatusCodeOutOfSync, nil
	f := newFakeAgent(t, []runtime.Object{child})
	p := &pass{plan: &plan.Plan{Rollout: "x"}, log: f.log, children: map[string]*v1alpha1.Application{child.Name: child},
		decision: rollout.Decision{Syncs: []rollout.Sync{{Child: child.Name}}}}
	for range 2 {
		if err := f.startSyncs(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	if got := testutil.ToFloat64(f.metrics.Syncs.WithLabelValues("x")); got != 1 {
		t.Fatalf("%v syncs counted, want 1", got)
	}
}

// TestDeleteChildReChecksTheClusterSecrets: the live cluster Secrets, not the cache, decide
// the last time before a delete; a cluster registered again keeps its child.
func TestDeleteChildReChecksTheClusterSecrets(t *testing.T) {
	ctx := context.Background()
	child := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "web-prod-1", Namespace: testNS, Labels: map[string]string{contract.LabelCluster: "prod-1"}}}
	p := func(f *fakeAgent) *pass {
		return &pass{plan: &plan.Plan{Rollout: "web", Parent: "web-parent"}, children: map[string]*v1alpha1.Application{child.Name: child}, log: f.log}
	}

	back := newFakeAgent(t, []runtime.Object{child, clusterSecret("prod-1", "https://prod-1", nil)}) // the cache has no Secret
	if err := back.deleteChild(ctx, p(back), child.Name); err != nil {
		t.Fatal(err)
	}
	getApp(t, back, child.Name)
	if ev := drain(back.events); len(ev) != 1 || !strings.HasPrefix(ev[0], "Warning RemovalRefused not deleting web-prod-1") {
		t.Fatalf("events %q", ev)
	}

	gone := newFakeAgent(t, []runtime.Object{child, clusterSecret("prod-2", "https://prod-2", nil)}, clusterSecret("prod-1", "https://prod-1", nil))
	if err := gone.deleteChild(ctx, p(gone), child.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := gone.argo.ArgoprojV1alpha1().Applications(testNS).Get(ctx, child.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the child of a cluster gone is deleted: %v", err)
	}
}

// TestTheInventoryIsWrittenOnceWhileUnchanged: publishing again writes nothing until a
// cluster changes, and the ConfigMap never holds credentials.
func TestTheInventoryIsWrittenOnceWhileUnchanged(t *testing.T) {
	ctx := context.Background()
	dev, prod := clusterSecret("dev-1", "https://dev-1", map[string]string{"env": "dev"}), clusterSecret("prod-1", "https://prod-1", map[string]string{"env": "prod"})
	f := newFakeAgent(t, nil, dev, prod, planOf("web", "web-parent"))
	for range 3 {
		if _, err := f.publish(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := writes(f.kube.Actions(), "configmaps"); n != 1 {
		t.Fatalf("%d writes of an unchanged inventory", n)
	}
	cm, err := f.kube.CoreV1().ConfigMaps(testNS).Get(ctx, contract.InventoryConfigMap, metav1.GetOptions{})
	if err != nil || !strings.Contains(cm.Data[contract.InventoryKey], `"prod-1"`) || strings.Contains(cm.Data[contract.InventoryKey], "s3cr3t") {
		t.Fatalf("%v %v", err, cm)
	}

	if key, _ := f.queue.Get(); key != "web" || f.queue.Len() != 0 {
		t.Fatalf("the first inventory wakes every rollout: %q", key)
	} else {
		f.queue.Done(key)
	}
	relabelled := prod.DeepCopy()
	relabelled.Labels["env"] = "staging"
	f.caches = cachesOf(t, dev, relabelled, planOf("web", "web-parent"))
	if _, err := f.publish(ctx); err != nil {
		t.Fatal(err)
	}
	if n := writes(f.kube.Actions(), "configmaps"); n != 2 {
		t.Fatalf("a changed cluster is published once: %d writes", n)
	}
	if f.queue.Len() != 1 {
		t.Fatalf("a changed inventory wakes every rollout: %d queued", f.queue.Len())
	}
}
