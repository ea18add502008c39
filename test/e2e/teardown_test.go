//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// deletions watches a rollout's children and notes, per child, when its delete started
// (a deletionTimestamp seen) and when it was gone.
type deletions struct {
	mu            sync.Mutex
	started, gone map[string]time.Time
	stop          context.CancelFunc
}

func watchDeletions(t *testing.T, rollout string) *deletions {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Watch(ctx, metav1.ListOptions{LabelSelector: contract.RolloutSelector(rollout)})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	d := &deletions{started: map[string]time.Time{}, gone: map[string]time.Time{}, stop: cancel}
	t.Cleanup(cancel)
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			app, ok := ev.Object.(*v1alpha1.Application)
			if !ok {
				continue
			}
			now := time.Now()
			d.mu.Lock()
			if _, seen := d.started[app.Name]; !seen && (app.DeletionTimestamp != nil || ev.Type == watch.Deleted) {
				d.started[app.Name] = now
			}
			if ev.Type == watch.Deleted {
				d.gone[app.Name] = now
			}
			d.mu.Unlock()
		}
	}()
	return d
}

func (d *deletions) snapshot() (started, gone map[string]time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return maps.Clone(d.started), maps.Clone(d.gone)
}

// TestDeletingTheParentRemovesItsChildrenLatestPhaseFirst: a parent with Argo CD's resources
// finalizer gets the agent's finalizer; deleted, its children go in reverse phase order —
// no child's delete starts before every child of a later phase is gone (from a watch) — and
// then the parent goes, with the state deploying nothing.
//
// Its post-delete hooks (seed 002's PostDelete) run only once every child is gone, each
// once: the per-cluster one for each child, naming its cluster, the other once; the parent
// goes only after they ended.
func TestDeletingTheParentRemovesItsChildrenLatestPhaseFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	calls := &timedCalls{at: map[string][]time.Time{}}
	srv := httptest.NewServer(calls)
	defer srv.Close()
	r := newPhased(t, "teardown", "rollback")
	r.edit = func(s string) string {
		return strings.Replace(s, "      type: phaseDeployment\n", "      type: phaseDeployment\n      postDeleteHooks:\n"+
			"      - {name: deregister, type: http, http: {url: '"+srv.URL+"/deregister/{{name}}'}}\n"+
			"      - {name: archive, type: http, http: {url: '"+srv.URL+"/archive'}}\n", 1)
	}
	defer r.agent("agent-teardown", nil, "--hook-allow-private").Stop(5 * time.Second)
	r.firstDeployment(ctx, framework.Workload(r.name, "v2"))
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": []string{contract.FinalizerResources}}})
	if _, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Patch(ctx, r.name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitFor(t, time.Minute, "the agent adds its finalizer next to the resources finalizer", func(ctx context.Context) (bool, string) {
		p, err := env.App(ctx, r.name)
		if err != nil {
			return false, err.Error()
		}
		return slices.Contains(p.Finalizers, contract.FinalizerChildren), fmt.Sprint(p.Finalizers)
	})
	st, err := r.state(ctx)
	if err != nil {
		t.Fatal(err)
	}
	phaseOf := map[string]int{}
	for i, ph := range st.Rollout.Phases {
		for _, c := range ph.Admitted {
			phaseOf[c] = i
		}
	}
	if len(phaseOf) != len(env.Clusters) {
		t.Fatalf("the first deployment admitted %v", phaseOf)
	}
	d := watchDeletions(t, r.name)
	if err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Delete(ctx, r.name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitFor(t, 4*time.Minute, "every child and then the parent are gone", func(ctx context.Context) (bool, string) {
		_, gone := d.snapshot()
		_, err := env.App(ctx, r.name)
		return apierrors.IsNotFound(err) && len(gone) == len(phaseOf), fmt.Sprintf("children gone %d of %d, parent: %v", len(gone), len(phaseOf), err)
	})
	started, gone := d.snapshot()
	for c, i := range phaseOf {
		for later, j := range phaseOf {
			if j > i && !started[c].After(gone[later]) {
				t.Errorf("%s (phase %d) started going at %s, before %s (phase %d) was gone at %s", c, i, started[c].Format(time.StampMilli), later, j, gone[later].Format(time.StampMilli))
			}
		}
	}
	if st, err := r.state(ctx); err != nil || len(st.Children) != 0 {
		t.Fatalf("the state deploys nothing any more: %v %v", st, err)
	}
	calls.afterAll(t, gone, len(env.Clusters))
}

// timedCalls records when each path was called.
type timedCalls struct {
	mu sync.Mutex
	at map[string][]time.Time
}

func (c *timedCalls) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at[r.URL.Path] = append(c.at[r.URL.Path], time.Now())
}

// afterAll checks the post-delete hooks were called once each (deregister once per
// cluster, archive once), every call after the last child was gone.
func (c *timedCalls) afterAll(t *testing.T, gone map[string]time.Time, clusters int) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	last := slices.MaxFunc(slices.Collect(maps.Values(gone)), time.Time.Compare)
	perCluster := 0
	for path, at := range c.at {
		if len(at) != 1 {
			t.Errorf("%s called %d times, want once", path, len(at))
		}
		if strings.HasPrefix(path, "/deregister/") {
			perCluster++
		}
		if at[0].Before(last) {
			t.Errorf("%s called at %s, before the last child was gone at %s", path, at[0].Format(time.StampMilli), last.Format(time.StampMilli))
		}
	}
	if perCluster != clusters || len(c.at["/archive"]) != 1 {
		t.Errorf("deregister once per cluster (%d), archive once: %v", clusters, c.at)
	}
}

// TestDeletingTheParentWithoutTheFinalizerLeavesTheChildren: without Argo CD's resources
// finalizer a parent's delete does not cascade, and no child is touched.
func TestDeletingTheParentWithoutTheFinalizerLeavesTheChildren(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "keepkids", "rollback")
	defer r.agent("agent-keepkids", nil).Stop(5 * time.Second)
	r.firstDeployment(ctx, framework.Workload(r.name, "v2"))
	d := watchDeletions(t, r.name)
	if err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Delete(ctx, r.name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitFor(t, time.Minute, "the parent is gone", func(ctx context.Context) (bool, string) {
		_, err := env.App(ctx, r.name)
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	time.Sleep(15 * time.Second) // the agent has seen the parent go
	if started, _ := d.snapshot(); len(started) != 0 {
		t.Fatalf("children deleted without the finalizer: %v", started)
	}
	for _, c := range env.Clusters {
		a, err := env.App(ctx, r.name+"-"+c.Name)
		if err != nil || a.DeletionTimestamp != nil {
			t.Fatalf("%s stays: %v", c.Name, err)
		}
	}
}
