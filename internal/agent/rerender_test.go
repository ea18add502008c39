package agent

import (
	"context"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/telemetry"
)

func verbs(actions []k8stesting.Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.GetVerb())
	}
	return out
}

// TestSetPhaseGenFromTheCachePatchesOnce: the cached parent saves the read — one
// conditional patch that keeps the other entries and leaves the cached object as it was.
func TestSetPhaseGenFromTheCachePatchesOnce(t *testing.T) {
	ctx := context.Background()
	live := parentApp(&v1alpha1.EnvEntry{Name: "SYNC_OPTIONS", Value: "Prune=false"}, &v1alpha1.EnvEntry{Name: contract.EnvPhaseGen, Value: "3"})
	live.ResourceVersion = "7"
	cached := live.DeepCopy()
	f := newFakeAgent(t, []runtime.Object{live})
	p := &pass{log: f.log}
	if _, err := f.setPhaseGen(ctx, p, "web-parent", cached, 4); err != nil {
		t.Fatal(err)
	}
	if v := verbs(f.argo.Actions()); len(v) != 1 || v[0] != "patch" {
		t.Fatalf("one patch, no read: %v", v)
	}
	env := getApp(t, f, "web-parent").Spec.Source.Plugin.Env
	if len(env) != 2 || env[0].Value != "Prune=false" || env[1].Name != contract.EnvPhaseGen || env[1].Value != "4" {
		t.Fatalf("env %v", env)
	}
	if cached.Spec.Source.Plugin.Env[1].Value != "3" {
		t.Fatal("the cached parent was changed")
	}

	f.argo.ClearActions()
	cached.Spec.Source.Plugin.Env[1].Value = "4"
	if _, err := f.setPhaseGen(ctx, p, "web-parent", cached, 4); err != nil || len(f.argo.Actions()) != 0 {
		t.Fatalf("already set: no request, got %v (%v)", verbs(f.argo.Actions()), err)
	}
}

// TestSetPhaseGenFallsBackWhenTheCacheIsBehind: a failed patch (the env changed since the
// cache read it), or no cached parent, is SetPhaseGen's read and write.
func TestSetPhaseGenFallsBackWhenTheCacheIsBehind(t *testing.T) {
	ctx := context.Background()
	f := newFakeAgent(t, []runtime.Object{parentApp(&v1alpha1.EnvEntry{Name: contract.EnvPhaseGen, Value: "3"})})
	p := &pass{log: f.log}
	if _, err := f.setPhaseGen(ctx, p, "web-parent", parentApp(&v1alpha1.EnvEntry{Name: contract.EnvPhaseGen, Value: "2"}), 5); err != nil {
		t.Fatal(err)
	}
	if v := verbs(f.argo.Actions()); len(v) != 3 || v[0] != "patch" || v[1] != "get" || v[2] != "update" {
		t.Fatalf("the patch, then a read and write: %v", v)
	}
	if got := getApp(t, f, "web-parent").Spec.Source.Plugin.Env[0].Value; got != "5" {
		t.Fatalf("after the cached env failed the test: %s", got)
	}
	f.argo.ClearActions()
	if _, err := f.setPhaseGen(ctx, p, "web-parent", nil, 6); err != nil {
		t.Fatal(err)
	}
	if v := verbs(f.argo.Actions()); len(v) != 2 || v[0] != "get" || v[1] != "update" {
		t.Fatalf("no cached parent: read and write, got %v", v)
	}
}

// TestAskingAgainReadsNoParentTheCacheShowsAsked: asking again for a render when the
// cached parent already names the generation is only the hard refresh — no read of a
// parent that may hold thousands of children; otherwise PHASE_GEN is set again first.
func TestAskingAgainReadsNoParentTheCacheShowsAsked(t *testing.T) {
	ctx := context.Background()
	live := parentApp(&v1alpha1.EnvEntry{Name: contract.EnvPhaseGen, Value: "5"})
	f := newFakeAgent(t, []runtime.Object{live})
	f.opts.HardRefresh = true
	p := &pass{log: f.log, plan: &plan.Plan{Rollout: "web", Parent: "web-parent"}}
	st := &state.State{Generation: 5, ViewGeneration: 5}
	if err := f.askAgainOf(ctx, p, "web-parent", live.DeepCopy(), st); err != nil {
		t.Fatal(err)
	}
	if v := verbs(f.argo.Actions()); len(v) != 1 || v[0] != "patch" {
		t.Fatalf("only the hard refresh: %v", v)
	}
	f.argo.ClearActions()
	st.Generation = 6
	if err := f.askAgainOf(ctx, p, "web-parent", live.DeepCopy(), st); err != nil {
		t.Fatal(err)
	}
	if v := verbs(f.argo.Actions()); len(v) != 3 || v[0] != "get" || v[1] != "update" || v[2] != "patch" {
		t.Fatalf("PHASE_GEN again, then the hard refresh: %v", v)
	}
	if n := testutil.ToFloat64(f.metrics.Refreshes.WithLabelValues("web", telemetry.TargetParent)); n != 2 {
		t.Fatalf("%v parent refreshes counted, want the two hard refreshes", n)
	}
}

// TestNamePhaseGenWaitsForItsOwnWriteInTheCache: a pass whose cached parent is older than
// the agent's own PHASE_GEN write (the version it wrote from, or one between) writes
// nothing and keeps when it asked; once the cache shows the write or any later version —
// someone setting PHASE_GEN back — the protocol decides from that again, as it does for
// another object or once --confirm-after has passed.
func TestNamePhaseGenWaitsForItsOwnWriteInTheCache(t *testing.T) {
	ctx := context.Background()
	live := parentApp(&v1alpha1.EnvEntry{Name: contract.EnvPhaseGen, Value: "3"})
	live.ResourceVersion = "7"
	f := newFakeAgent(t, []runtime.Object{live})
	f.argo.PrependReactor("patch", "applications", func(k8stesting.Action) (bool, runtime.Object, error) {
		written := getAppUntracked(t, f)
		written.ResourceVersion = "10"
		return true, written, nil // the server's answer: the version the write made
	})
	f.opts.ConfirmAfter = 30 * time.Second
	p := &pass{log: f.log}
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	live.UID = "uid-1"
	stale := live.DeepCopy()
	mem, asked, err := f.namePhaseGen(ctx, p, "web-parent", stale, 4, named{}, t0)
	if err != nil || mem.set != 4 || mem.before != 3 || mem.wrote != "10" || mem.uid != "uid-1" || !asked.Equal(t0) {
		t.Fatalf("first write: %+v %v %v", mem, asked, err)
	}
	mem.asked = asked
	for _, rv := range []string{"7", "9"} { // the version written from; a status write before the write
		f.argo.ClearActions()
		cached := stale.DeepCopy()
		cached.ResourceVersion = rv
		again, askedAgain, err := f.namePhaseGen(ctx, p, "web-parent", cached, 4, mem, t0.Add(time.Second))
		if err != nil || len(f.argo.Actions()) != 0 || again != mem || !askedAgain.Equal(t0) {
			t.Fatalf("cache at %s, behind its own write: %v, %+v, asked %v (%v)", rv, verbs(f.argo.Actions()), again, askedAgain, err)
		}
	}
	for _, rv := range []string{"11", "", "x"} { // set back after the write; versions that do not compare
		f.argo.ClearActions()
		back := stale.DeepCopy()
		back.ResourceVersion = rv
		if _, _, err := f.namePhaseGen(ctx, p, "web-parent", back, 4, mem, t0.Add(2*time.Second)); err != nil || len(f.argo.Actions()) == 0 {
			t.Fatalf("cache at %q: written again, got %v (%v)", rv, verbs(f.argo.Actions()), err)
		}
	}
	f.argo.ClearActions()
	if _, _, err := f.namePhaseGen(ctx, p, "web-parent", nil, 4, mem, t0); err != nil || len(f.argo.Actions()) == 0 {
		t.Fatalf("no cached parent: written, got %v (%v)", verbs(f.argo.Actions()), err)
	}
	other := stale.DeepCopy()
	other.UID = "uid-2" // recreated, or another parent named meanwhile
	f.argo.ClearActions()
	if _, _, err := f.namePhaseGen(ctx, p, "web-parent", other, 4, mem, t0.Add(time.Second)); err != nil || len(f.argo.Actions()) == 0 {
		t.Fatalf("another object: written, got %v (%v)", verbs(f.argo.Actions()), err)
	}
	f.argo.ClearActions()
	if _, _, err := f.namePhaseGen(ctx, p, "web-parent", stale, 4, mem, t0.Add(30*time.Second)); err != nil || len(f.argo.Actions()) == 0 {
		t.Fatalf("after --confirm-after (a write lost to a restore): written, got %v (%v)", verbs(f.argo.Actions()), err)
	}
}

// getAppUntracked reads the fake's parent without recording an action.
func getAppUntracked(t *testing.T, f *fakeAgent) *v1alpha1.Application {
	t.Helper()
	obj, err := f.argo.Tracker().Get(v1alpha1.SchemeGroupVersion.WithResource("applications"), testNS, "web-parent")
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*v1alpha1.Application).DeepCopy()
}
