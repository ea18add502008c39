package rollout

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// postDeleteWorld is threePhases completed on r2, with a per-cluster post-delete hook
// (deregister, templated with the cluster) and one for the rollout (archive); every live
// child names its cluster as its label does.
func postDeleteWorld(t *testing.T) (*world, int) {
	t.Helper()
	w := newWorld(threePhases()...)
	s := w.finish(t, 0, "r2")
	w.plan.PostDeleteHooks = []spec.Hook{
		httpHook("deregister", "https://dns.example.com/{{name}}", "fail"),
		httpHook("archive", "https://archive.example.com/web", "ignore"),
	}
	for c, obs := range w.obs.Children {
		obs.Cluster = "cluster-" + c
		w.obs.Children[c] = obs
	}
	return w, s
}

// TestALeavingChildsPostDeleteHookRunsOnceItIsGone: seed 002's PostDelete for a cluster
// that leaves: nothing runs while the child is being deleted; once Argo CD confirmed it
// gone its per-cluster hooks run, once, naming the cluster; the rollout's own do not.
func TestALeavingChildsPostDeleteHookRunsOnceItIsGone(t *testing.T) {
	w, s := postDeleteWorld(t)
	w.leave("prod-1")
	if acts := w.step(t, s+10); len(runs(acts)) != 0 || fmt.Sprint(w.st.Removing) != "[prod-1]" {
		t.Fatalf("nothing runs before the child is gone: %v, removing %v", runs(acts), w.st.Removing)
	}
	if acts := w.step(t, s+20); len(runs(acts)) != 0 {
		t.Fatalf("still live: %v", runs(acts))
	}
	delete(w.obs.Children, "prod-1")
	acts := w.step(t, s+30)
	if got := fmt.Sprint(runs(acts)); got != "[postdelete/deregister/prod-1]" {
		t.Fatalf("the per-cluster hook runs for the child gone, the rollout's does not: %s", got)
	}
	for _, a := range acts {
		if a.Kind == ActRunHook && (a.ClusterName != "cluster-prod-1" || a.Phase != NoPhase) {
			t.Fatalf("the run names the child's cluster and no phase: %+v", a)
		}
	}
	acts = w.step(t, s+31)
	if got := fmt.Sprint(runs(acts)); got != "[postdelete/deregister/prod-1]" || slices.ContainsFunc(acts, func(a Action) bool { return a.Reason == EvHookStarted }) {
		t.Fatalf("a running one is asked for again, never started twice: %s", got)
	}
	if acts[slices.IndexFunc(acts, func(a Action) bool { return a.Kind == ActRunHook })].ClusterName != "cluster-prod-1" {
		t.Fatalf("asked again, it still names its cluster: %+v", acts)
	}
	w.ends(32, state.HookSucceeded, "postdelete/deregister/prod-1")
	acts = w.step(t, s+33)
	if run := w.st.AfterDelete["postdelete/deregister/prod-1"]; run.Status != state.HookSucceeded || len(runs(acts)) != 0 {
		t.Fatalf("recorded, not run again: %+v %v", run, runs(acts))
	}
	if len(w.st.RemovingClusters) != 0 {
		t.Fatalf("the cluster's name is forgotten once its runs ended: %v", w.st.RemovingClusters)
	}
}

// TestADeletedParentIsReleasedOnlyAfterItsPostDeleteHooks: every child gone with the
// parent, the post-delete hooks run (per cluster for each child, the rollout's once), and
// the parent's finalizer stays until they ended, as Argo CD's post-delete finalizer does.
func TestADeletedParentIsReleasedOnlyAfterItsPostDeleteHooks(t *testing.T) {
	w, _ := postDeleteWorld(t)
	o := Observed{Children: maps.Clone(w.obs.Children), Subjects: w.obs.Subjects, Dismantle: &Dismantle{How: "with the parent web-parent"}}
	decide := func() Decision {
		t.Helper()
		d, err := Decide(w.plan, w.st, o, at(100))
		if err != nil {
			t.Fatal(err)
		}
		if d.Next != nil {
			w.st = d.Next
		}
		return d
	}
	for range 3 {
		d := decide()
		if len(runs(d.Actions)) != 0 {
			t.Fatalf("nothing runs while children are live: %v", runs(d.Actions))
		}
		for _, c := range d.Delete {
			delete(o.Children, c)
		}
	}
	d := decide()
	want := "[postdelete/archive postdelete/deregister/dev-1 postdelete/deregister/dev-2 postdelete/deregister/prod-1 postdelete/deregister/prod-2 postdelete/deregister/staging-1 postdelete/deregister/staging-2]"
	if got := fmt.Sprint(runs(d.Actions)); got != want || d.Release {
		t.Fatalf("every child gone: each per-cluster hook per child and the rollout's once, the parent kept: %s release %v", got, d.Release)
	}
	o.Hooks = map[string]HookResult{}
	for _, k := range runs(d.Actions) {
		o.Hooks[k] = HookResult{Status: state.HookSucceeded, Attempts: 1, FinishedAt: at(101)}
	}
	o.Hooks["postdelete/archive"] = HookResult{Status: state.HookFailed, Attempts: 1, FinishedAt: at(101), Message: "archive down"}
	d = decide()
	if !d.Release || len(runs(d.Actions)) != 0 || len(w.st.Children) != 0 {
		t.Fatalf("once they ended (a failed one too), the teardown and the release: %+v", d)
	}
	if w.st.AfterDelete["postdelete/archive"].Status != state.HookFailed {
		t.Fatalf("the ledger keeps how they ended: %+v", w.st.AfterDelete)
	}
}
