package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-phase/cmp-phase/internal/agent/rerender"
	"github.com/cmp-phase/cmp-phase/internal/agent/shardset"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/shard"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

func deletableParent(deleting bool, finalizers ...string) *v1alpha1.Application {
	p := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "web-parent", Namespace: testNS, ResourceVersion: "7", Finalizers: finalizers}}
	if deleting {
		now := metav1.NewTime(time.Date(2026, 11, 25, 5, 0, 0, 0, time.UTC))
		p.DeletionTimestamp = &now
	}
	return p
}

// takenParent is a parent deleted with Argo CD's resources finalizer once Argo CD's
// controller has taken the delete: it removed that finalizer (deleting no child, as they
// carry Delete=false), and the agent recorded the cascade on the parent.
func takenParent() *v1alpha1.Application {
	p := deletableParent(true, contract.FinalizerChildren)
	p.Annotations = map[string]string{contract.AnnotationTeardown: "cascade"}
	return p
}

func childApp(name string) *v1alpha1.Application {
	return &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS, Labels: map[string]string{contract.LabelRollout: "web"}}}
}

// deployedState is the state of rollout web: web-dev-1 admitted in dev, web-prod-1 in prod.
func deployedState(t *testing.T) *corev1.ConfigMap {
	t.Helper()
	at := time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)
	st := &state.State{Schema: state.Schema, Generation: 5, Deployed: "r1", Revisions: map[string]json.RawMessage{"r1": json.RawMessage(`{}`)},
		Children: []string{"web-dev-1", "web-prod-1"},
		Rollout: &state.Rollout{Revision: "r1", Status: state.RolloutCompleted, Phase: 2, StartedAt: at, Phases: []state.PhaseState{
			{Name: "dev", Status: state.PhaseSucceeded, Members: []string{"web-dev-1"}, Admitted: []string{"web-dev-1"}},
			{Name: "prod", Status: state.PhaseSucceeded, Members: []string{"web-prod-1"}, Admitted: []string{"web-prod-1"}}}}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.StateConfigMap("web"), Namespace: testNS, ResourceVersion: "3",
		Labels: map[string]string{contract.LabelState: contract.MarkerValue}}}
	if err := state.ToConfigMap(st, cm); err != nil {
		t.Fatal(err)
	}
	return cm
}

// livePass is a pass over what the fake API server holds now (the caches as a fresh
// informer would see them).
func livePass(t *testing.T, f *fakeAgent, order string, extra ...runtime.Object) *pass {
	t.Helper()
	ctx := context.Background()
	apps, err := f.argo.ArgoprojV1alpha1().Applications(testNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objs := slices.Clone(extra)
	if cm, err := f.kube.CoreV1().ConfigMaps(testNS).Get(ctx, contract.StateConfigMap("web"), metav1.GetOptions{}); err == nil {
		objs = append(objs, cm)
	}
	p := &pass{plan: &plan.Plan{Rollout: "web", Parent: "web-parent", Revision: "r1", DeletionOrder: order,
		Phases: []spec.Phase{{Name: "dev"}, {Name: "prod"}}}, children: map[string]*v1alpha1.Application{}, log: f.log}
	for i := range apps.Items {
		app := &apps.Items[i]
		objs = append(objs, app)
		if app.Name == "web-parent" {
			p.parent = app
		} else if labels.SelectorFromSet(labels.Set{contract.LabelRollout: "web"}).Matches(labels.Set(app.Labels)) {
			p.children[app.Name] = app
		}
	}
	f.caches = cachesOf(t, objs...)
	return p
}

func liveNames(t *testing.T, f *fakeAgent) []string {
	t.Helper()
	apps, err := f.argo.ArgoprojV1alpha1().Applications(testNS).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range apps.Items {
		out = append(out, a.Name)
	}
	slices.Sort(out)
	return out
}

// TestDeletingTheParentRemovesChildrenLatestPhaseFirst: with the agent's finalizer, each
// pass deletes the latest phase's live children, the next phase only once they are gone;
// then the state deploys nothing and the parent is let go.
func TestDeletingTheParentRemovesChildrenLatestPhaseFirst(t *testing.T) {
	ctx := context.Background()
	f := newFakeAgent(t, []runtime.Object{takenParent(), childApp("web-dev-1"), childApp("web-prod-1"), deployedState(t)})
	for i, want := range [][]string{{"web-dev-1", "web-parent"}, {"web-parent"}} {
		held, next, err := f.parentLifecycle(ctx, livePass(t, f, ""))
		if err != nil || !held || next.IsZero() {
			t.Fatalf("pass %d: held %v next %v err %v", i, held, next, err)
		}
		if got := liveNames(t, f); !slices.Equal(got, want) {
			t.Fatalf("pass %d: live %v, want %v", i, got, want)
		}
	}
	if held, _, err := f.parentLifecycle(ctx, livePass(t, f, "")); err != nil || !held {
		t.Fatalf("last pass: held %v err %v", held, err)
	}
	parent, err := f.argo.ArgoprojV1alpha1().Applications(testNS).Get(ctx, "web-parent", metav1.GetOptions{})
	if err != nil || slices.Contains(parent.Finalizers, contract.FinalizerChildren) {
		t.Fatalf("the parent is let go once every child is gone: %v %v", parent.Finalizers, err)
	}
	cm, err := f.kube.CoreV1().ConfigMaps(testNS).Get(ctx, contract.StateConfigMap("web"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := state.FromConfigMap(cm)
	if err != nil || len(st.Children) != 0 || st.Generation != 6 {
		t.Fatalf("the state deploys nothing any more: %+v %v", st, err)
	}
	if ev := strings.Join(drain(f.events), "\n"); !strings.Contains(ev, "ChildrenRemoving the parent is deleted: removing web-prod-1") || !strings.Contains(ev, "RolloutRemoved") {
		t.Fatalf("events %s", ev)
	}
	// The parent is gone now: a rollout that deploys nothing has nothing to drive.
	f.caches = cachesOf(t, cm)
	if held, _, err := f.parentLifecycle(ctx, &pass{plan: &plan.Plan{Rollout: "web", Parent: "web-parent"}, log: f.log}); !held || err != nil {
		t.Fatalf("held %v err %v", held, err)
	}
}

func TestAllAtOnceDeletesEveryChildInOnePass(t *testing.T) {
	f := newFakeAgent(t, []runtime.Object{takenParent(), childApp("web-dev-1"), childApp("web-prod-1"), deployedState(t)})
	if _, _, err := f.parentLifecycle(context.Background(), livePass(t, f, spec.DeletionAllAtOnce)); err != nil {
		t.Fatal(err)
	}
	if got := liveNames(t, f); !slices.Equal(got, []string{"web-parent"}) {
		t.Fatalf("live %v", got)
	}
}

// TestAChildBeingDeletedHoldsTheNextGroup: after a restart, a group whose delete is under
// way (the child's own finalizer removing its resources) is not deleted again, and the next
// group waits.
func TestAChildBeingDeletedHoldsTheNextGroup(t *testing.T) {
	going := childApp("web-prod-1")
	now := metav1.Now()
	going.DeletionTimestamp, going.Finalizers = &now, []string{contract.FinalizerResources}
	f := newFakeAgent(t, []runtime.Object{takenParent(), childApp("web-dev-1"), going, deployedState(t)})
	if _, _, err := f.parentLifecycle(context.Background(), livePass(t, f, "")); err != nil {
		t.Fatal(err)
	}
	if n := deletes(f); n != 0 {
		t.Fatalf("%d deletes while prod is still going", n)
	}
}

// TestAParentOperationHoldsTheTeardown: Argo CD runs a parent's requested or running
// operation even while the parent is being deleted, and that sync would apply children
// again behind the order: no child is deleted until it has ended.
func TestAParentOperationHoldsTheTeardown(t *testing.T) {
	parent := takenParent()
	parent.Operation = &v1alpha1.Operation{Sync: &v1alpha1.SyncOperation{}}
	f := newFakeAgent(t, []runtime.Object{parent, childApp("web-dev-1"), childApp("web-prod-1"), deployedState(t)})
	held, next, err := f.parentLifecycle(context.Background(), livePass(t, f, ""))
	if err != nil || !held || next.IsZero() {
		t.Fatalf("held %v next %v err %v", held, next, err)
	}
	if n := deletes(f); n != 0 {
		t.Fatalf("%d deletes while the parent's operation runs", n)
	}
}

// TestATeardownWaitsForArgoCDToTakeTheDelete: while the deleted parent still carries Argo
// CD's resources finalizer, Argo CD's controller has not processed its delete, and a
// refresh that read the parent from before it may still auto-sync it and apply a child
// deleted meanwhile again: no child is deleted; once the finalizer is off, the latest
// phase goes.
func TestATeardownWaitsForArgoCDToTakeTheDelete(t *testing.T) {
	ctx := context.Background()
	parent := deletableParent(true, contract.FinalizerResources, contract.FinalizerChildren)
	f := newFakeAgent(t, []runtime.Object{parent, childApp("web-dev-1"), childApp("web-prod-1"), deployedState(t)})
	held, next, err := f.parentLifecycle(ctx, livePass(t, f, ""))
	if err != nil || !held || next.IsZero() {
		t.Fatalf("held %v next %v err %v", held, next, err)
	}
	if n := deletes(f); n != 0 {
		t.Fatalf("%d deletes before Argo CD took the parent's delete", n)
	}
	taken, err := f.argo.ArgoprojV1alpha1().Applications(testNS).Get(ctx, "web-parent", metav1.GetOptions{})
	if err != nil || taken.Annotations[contract.AnnotationTeardown] == "" {
		t.Fatalf("the cascade is recorded before Argo CD removes its finalizer: %v", err)
	}
	taken.Finalizers = []string{contract.FinalizerChildren}
	if _, err := f.argo.ArgoprojV1alpha1().Applications(testNS).Update(ctx, taken, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.parentLifecycle(ctx, livePass(t, f, "")); err != nil {
		t.Fatal(err)
	}
	if got := liveNames(t, f); !slices.Equal(got, []string{"web-dev-1", "web-parent"}) {
		t.Fatalf("live %v once Argo CD took the delete", got)
	}
}

// TestWithoutTheFinalizerTheChildrenStay: a parent deleted without the agent's finalizer
// (no resources finalizer: a non-cascading delete) leaves every child, and moves nobody.
func TestWithoutTheFinalizerTheChildrenStay(t *testing.T) {
	f := newFakeAgent(t, []runtime.Object{deletableParent(true, "other.example.com/hold"), childApp("web-dev-1"), childApp("web-prod-1"), deployedState(t)})
	held, _, err := f.parentLifecycle(context.Background(), livePass(t, f, ""))
	if err != nil || !held || deletes(f) != 0 || writes(f.argo.Actions(), "applications") != 0 {
		t.Fatalf("held %v err %v, actions %v", held, err, f.argo.Actions())
	}
}

// TestTheAgentsFinalizerIsOnEveryParent: the agent's finalizer is added to every parent,
// with any form of Argo CD's resources finalizer or none (argocd app delete adds that one
// at delete time, faster than a watch), and nothing is written when it is there.
func TestTheAgentsFinalizerIsOnEveryParent(t *testing.T) {
	cases := map[string]struct {
		finalizers []string
		want       []string // nil: no write
	}{
		"resources finalizer":       {[]string{contract.FinalizerResources}, []string{contract.FinalizerResources, contract.FinalizerChildren}},
		"its background form":       {[]string{contract.FinalizerResourcesBackground}, []string{contract.FinalizerResourcesBackground, contract.FinalizerChildren}},
		"its foreground form":       {[]string{contract.FinalizerResourcesForeground}, []string{contract.FinalizerResourcesForeground, contract.FinalizerChildren}},
		"both already":              {[]string{contract.FinalizerResources, contract.FinalizerChildren}, nil},
		"none":                      {nil, []string{contract.FinalizerChildren}},
		"resources finalizer taken": {[]string{"x.example.com/f", contract.FinalizerChildren}, nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFakeAgent(t, []runtime.Object{deletableParent(false, c.finalizers...)})
			held, _, err := f.parentLifecycle(context.Background(), livePass(t, f, ""))
			if err != nil || held {
				t.Fatalf("held %v err %v", held, err)
			}
			parent, err := f.argo.ArgoprojV1alpha1().Applications(testNS).Get(context.Background(), "web-parent", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n := writes(f.argo.Actions(), "applications"); c.want == nil && n != 0 || c.want != nil && (n != 1 || !slices.Equal(parent.Finalizers, c.want)) {
				t.Fatalf("%d writes, finalizers %v, want %v", n, parent.Finalizers, c.want)
			}
		})
	}
}

// deletes counts the Application deletes the fake API server saw.
func deletes(f *fakeAgent) int {
	n := 0
	for _, a := range f.argo.Actions() {
		if a.GetVerb() == "delete" && a.GetResource().Resource == "applications" {
			n++
		}
	}
	return n
}

// TestAConfirmedRemovalDeletesLatestPhaseFirstThenReRenders: a removal a person confirmed
// (spec gone from git) deletes the children as a deleted parent's, then the state deploys
// nothing and the parent is asked to re-render (now to nothing).
func TestAConfirmedRemovalDeletesLatestPhaseFirstThenReRenders(t *testing.T) {
	ctx := context.Background()
	parent := deletableParent(false)
	parent.Spec.Source = &v1alpha1.ApplicationSource{Plugin: &v1alpha1.ApplicationSourcePlugin{Name: contract.PluginName}}
	removing := deployedState(t)
	{
		s, err := state.FromConfigMap(removing)
		if err != nil {
			t.Fatal(err)
		}
		s.RemovedRevision = "r1" // the engine recorded a person's confirmation
		if err := state.ToConfigMap(s, removing); err != nil {
			t.Fatal(err)
		}
	}
	f := newFakeAgent(t, []runtime.Object{parent, childApp("web-dev-1"), childApp("web-prod-1"), removing})
	st := func() *state.State {
		cm, err := f.kube.CoreV1().ConfigMaps(testNS).Get(ctx, contract.StateConfigMap("web"), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := state.FromConfigMap(cm)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for i, want := range [][]string{{"web-dev-1", "web-parent"}, {"web-parent"}} {
		if _, err := f.removeRollout(ctx, livePass(t, f, "")); err != nil {
			t.Fatal(err)
		}
		if got := liveNames(t, f); !slices.Equal(got, want) {
			t.Fatalf("pass %d: live %v, want %v", i, got, want)
		}
	}
	if _, err := f.removeRollout(ctx, livePass(t, f, "")); err != nil {
		t.Fatal(err)
	}
	after := st()
	if len(after.Children) != 0 {
		t.Fatalf("children %v", after.Children)
	}
	p, err := f.argo.ArgoprojV1alpha1().Applications(testNS).Get(ctx, "web-parent", metav1.GetOptions{})
	if err != nil || rerender.PhaseGen(p) != after.Generation {
		t.Fatalf("PHASE_GEN %d, state generation %d: %v", rerender.PhaseGen(p), after.Generation, err)
	}
}

// TestANonCascadingDeleteLeavesTheChildren: `argocd app delete --cascade=false` takes the
// resources finalizer off before it deletes the parent, so only the agent's finalizer is
// left: the children stay and the parent is let go. A restarted agent still tears down a
// parent the watch saw cascading (its annotation), and the watch's memory counts too.
func TestANonCascadingDeleteLeavesTheChildren(t *testing.T) {
	ctx := context.Background()
	f := newFakeAgent(t, []runtime.Object{deletableParent(true, contract.FinalizerChildren), childApp("web-dev-1"), childApp("web-prod-1"), deployedState(t)})
	if held, _, err := f.parentLifecycle(ctx, livePass(t, f, "")); err != nil || !held {
		t.Fatalf("held %v err %v", held, err)
	}
	if n := deletes(f); n != 0 {
		t.Fatalf("%d children deleted by a non-cascading delete", n)
	}
	parent, err := f.argo.ArgoprojV1alpha1().Applications(testNS).Get(ctx, "web-parent", metav1.GetOptions{})
	if err != nil || slices.Contains(parent.Finalizers, contract.FinalizerChildren) {
		t.Fatalf("the parent is let go: %v %v", parent.Finalizers, err)
	}

	recorded := deletableParent(true, contract.FinalizerChildren)
	recorded.Annotations = map[string]string{contract.AnnotationTeardown: "cascade"}
	f = newFakeAgent(t, []runtime.Object{recorded, childApp("web-dev-1"), childApp("web-prod-1"), deployedState(t)})
	if _, _, err := f.parentLifecycle(ctx, livePass(t, f, "")); err != nil || deletes(f) != 1 {
		t.Fatalf("a recorded teardown goes on after a restart: %d deletes, %v", deletes(f), err)
	}

	seen := deletableParent(true, contract.FinalizerChildren)
	seen.UID = "u-1"
	f = newFakeAgent(t, []runtime.Object{seen, childApp("web-dev-1"), childApp("web-prod-1"), deployedState(t)})
	cascaded := deletableParent(true, contract.FinalizerResources, contract.FinalizerChildren)
	cascaded.UID = "u-1"
	f.parents.Set("web-parent", "web")
	f.route(cascaded)
	if _, _, err := f.parentLifecycle(ctx, livePass(t, f, "")); err != nil || deletes(f) != 1 {
		t.Fatalf("a teardown the watch saw cascading: %d deletes, %v", deletes(f), err)
	}
	parent, _ = f.argo.ArgoprojV1alpha1().Applications(testNS).Get(ctx, "web-parent", metav1.GetOptions{})
	if parent.Annotations[contract.AnnotationTeardown] == "" {
		t.Fatal("the teardown is not recorded on the parent")
	}
}

// TestATeardownWaitsForItsPhasesWithoutAnInventory: a child the last rollout did not admit
// gets its phase from the plan and the inventory; before the inventory is published (a
// restarted agent) nothing is deleted, rather than every such child in one group.
func TestATeardownWaitsForItsPhasesWithoutAnInventory(t *testing.T) {
	f := newFakeAgent(t, []runtime.Object{takenParent(),
		childApp("web-dev-1"), childApp("web-prod-1"), childApp("web-prod-2"), deployedState(t)})
	held, next, err := f.parentLifecycle(context.Background(), livePass(t, f, ""))
	if err != nil || !held || next.IsZero() {
		t.Fatalf("held %v next %v err %v", held, next, err)
	}
	if n := deletes(f); n != 0 {
		t.Fatalf("%d deletes before web-prod-2 has a phase", n)
	}
}

// TestAShardedTeardownWaitsForTheOtherShardParents: deleting shard 0's parent removes no
// child while another shard parent is still there (it still renders its children); once
// every other one is gone the teardown goes on.
func TestAShardedTeardownWaitsForTheOtherShardParents(t *testing.T) {
	other := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "web-parent-1", Namespace: testNS}}
	for _, tc := range []struct {
		name   string
		shard1 *v1alpha1.Application
		held   bool
		reason string
	}{
		{"another shard parent there", other, true, "web-parent-1 still there"},
		{"every other shard parent gone", nil, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := takenParent()
			f := newFakeAgent(t, []runtime.Object{parent, childApp("web-dev-1"), childApp("web-prod-1"), deployedState(t)})
			p := livePass(t, f, "")
			p.shards = []shardset.Member{{Shard: shard.Shard{K: 0, N: 2}, Parent: "web-parent", App: p.parent},
				{Shard: shard.Shard{K: 1, N: 2}, Parent: "web-parent-1", App: tc.shard1}}
			if why := shardset.TeardownHold(p.shards); !strings.Contains(why, tc.reason) || (why != "") != tc.held {
				t.Fatalf("hold %q, want %q", why, tc.reason)
			}
			held, next, err := f.parentLifecycle(context.Background(), p)
			if err != nil || !held || next.IsZero() {
				t.Fatalf("held %v next %v err %v", held, next, err)
			}
			if n := deletes(f); (n == 0) != tc.held {
				t.Fatalf("%d deletes, held %v", n, tc.held)
			}
		})
	}
}
