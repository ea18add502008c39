//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoinformers "github.com/argoproj/argo-cd/v3/pkg/client/informers/externalversions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestAdmittedChildrenMoveAtOnce: the agent applies each admitted child itself, with the
// bytes the parent's render then confirms, and starts its sync in the same write. Watched
// on every change of every child: a child moves once per rollout and never back and forth,
// only once admitted (checked at every observation), syncs once, and the agent moves and
// syncs children itself, marked with its admission; the parent ends Synced, having nothing
// to change. Which children the agent moves before the parent applies its render is timing
// (it refrains while the parent might still apply an older render): each rollout must show
// at least one. v2 with the parent as the harness makes it; v3 with self-heal on
// the parent (the agent waits until the parent compared the new state, and the parent,
// which syncs right after, often moves the children first); v4 without self-heal again and
// the agent killed right after asking for a re-render and right after moving a child,
// again and again.
func TestAdmittedChildrenMoveAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "enacted", "rollback")
	w := watchChildren(t, r.name)
	a := r.agent("agent-enacted", nil, "--identity", "enacted")
	r.firstDeployment(ctx, framework.Workload(r.name, "v2"))
	// v3's workload came with the first deployment; v4's comes now.
	if _, err := env.Git.Commit(r.name+": workload v4", map[string]string{r.name + "/v4/cm.yaml": framework.Workload(r.name, "v4")}); err != nil {
		t.Fatal(err)
	}
	r2 := r.rollTo(ctx, w, "v2")
	r.movedOnceByTheAgent(ctx, w, r2)

	patch := `{"spec":{"syncPolicy":{"automated":{"selfHeal":true}}}}`
	if _, err := env.Argo.ArgoprojV1alpha1().Applications("argocd").Patch(ctx, r.name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	r3 := r.rollTo(ctx, w, "v3")
	r.movedOnceByTheAgent(ctx, w, r3)
	a.Stop(5 * time.Second)
	patch = `{"spec":{"syncPolicy":{"automated":{"selfHeal":false}}}}`
	if _, err := env.Argo.ArgoprojV1alpha1().Applications("argocd").Patch(ctx, r.name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}

	w.reset()
	r4 := r.commit("v4", nil)
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	crashes := 0
	deadline := time.Now().Add(6 * time.Minute)
	for i := 0; !r.completed(ctx, r4); i++ {
		fault := []string{"exit-after-rerender", "exit-after-move"}[i%2]
		p := r.agent(fmt.Sprintf("agent-enacted-%d", i), []string{"CMP_PHASE_AGENT_FAULT=" + fault}, "--identity", "enacted")
		for !r.completed(ctx, r4) && time.Now().Before(deadline) {
			select {
			case <-p.Wait():
				crashes++
			case <-time.After(200 * time.Millisecond):
				continue
			}
			break
		}
		p.Kill()
		if time.Now().After(deadline) {
			t.Fatalf("v4 not completed after %d crashes", crashes)
		}
	}
	r.until("v4 completes across crashes", r4, rollout.StatusCompleted, everywhere("v4"))
	r.movedOnceByTheAgent(ctx, w, r4)
	if crashes < 4 {
		t.Fatalf("only %d crashes: the test did not cover the moves", crashes)
	}
	t.Logf("v4 completed after %d crashes", crashes)
}

// rollTo commits version, announces it with a refresh and waits until it completes.
func (r *phased) rollTo(ctx context.Context, w *childWatch, version string) string {
	r.t.Helper()
	w.reset()
	rev := r.commit(version, nil)
	if err := env.Refresh(ctx, r.name, false); err != nil {
		r.t.Fatal(err)
	}
	r.until(version+" completes", rev, rollout.StatusCompleted, everywhere(version))
	return rev
}

// completed reports whether the rollout of rev completed.
func (r *phased) completed(ctx context.Context, rev string) bool {
	st, err := r.state(ctx)
	return err == nil && st.Rollout != nil && st.Rollout.Revision == rev && st.Rollout.Status == rollout.StatusCompleted
}

// movedOnceByTheAgent checks what the watch saw since its reset: every child went to rev
// once and never back and synced once, the agent moved at least one itself (the parent may
// apply its render first while the agent must wait), and the parent ends Synced. What went
// wrong is said again when the test ends, next to its verdict.
func (r *phased) movedOnceByTheAgent(ctx context.Context, w *childWatch, rev string) {
	r.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	agentMoves := 0
	fail := func(format string, args ...any) {
		msg := fmt.Sprintf(rev+": "+format, args...)
		r.t.Error(msg)
		r.t.Cleanup(func() { r.t.Log("again: " + msg) })
	}
	for _, c := range env.Clusters {
		name := r.name + "-" + c.Name
		if revs := w.revisions[name]; len(revs) != 2 || revs[1] != rev {
			fail("%s moved %v: want exactly once, to %s", name, revs, rev)
		}
		ops := w.ops[name]
		if len(ops) != 1 {
			fail("%s: operations %v, want exactly one sync", name, ops)
			continue
		}
		if strings.HasPrefix(ops[0], "cmp-phase-agent "+rev+"@") {
			agentMoves++
		}
	}
	if agentMoves == 0 {
		fail("the agent moved no child itself (operations %v)", w.ops)
	}

	env.WaitFor(r.t, time.Minute, "the parent is Synced", func(ctx context.Context) (bool, string) {
		p, err := env.App(ctx, r.name)
		if err != nil {
			return false, err.Error()
		}
		return framework.AppSyncedHealthy(p)
	})
	r.t.Logf("%s: %d of %d children moved and synced by the agent", rev, agentMoves, len(env.Clusters))
}

// childWatch records, from a watch on a rollout's children, each child's sequence of
// revisions (consecutive repeats folded) and every operation requested on it.
type childWatch struct {
	mu        sync.Mutex
	revisions map[string][]string
	ops       map[string][]string // "<initiator> <marker>"
	pending   map[string]bool
}

func watchChildren(t *testing.T, rolloutName string) *childWatch {
	w := &childWatch{}
	w.reset()
	f := argoinformers.NewSharedInformerFactoryWithOptions(env.Argo, 0, argoinformers.WithNamespace("argocd"),
		argoinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = contract.LabelRollout + "=" + rolloutName }))
	inf := f.Argoproj().V1alpha1().Applications().Informer()
	on := func(obj any) {
		if app, ok := obj.(*v1alpha1.Application); ok {
			w.see(app)
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: on, UpdateFunc: func(_, n any) { on(n) }}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	f.Start(stop)
	cache.WaitForCacheSync(stop, inf.HasSynced)
	return w
}

// reset starts a new rollout's record, from each child's current revision.
func (w *childWatch) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	last := map[string][]string{}
	for name, revs := range w.revisions {
		last[name] = []string{revs[len(revs)-1]}
	}
	w.revisions, w.ops, w.pending = last, map[string][]string{}, map[string]bool{}
}

func (w *childWatch) see(app *v1alpha1.Application) {
	w.mu.Lock()
	defer w.mu.Unlock()
	rev := app.Annotations[contract.AnnotationRevision]
	if revs := w.revisions[app.Name]; len(revs) == 0 || revs[len(revs)-1] != rev {
		w.revisions[app.Name] = append(revs, rev)
	}
	if op := app.Operation; op != nil && !w.pending[app.Name] {
		marker := ""
		for _, i := range op.Info {
			if i.Name == contract.OperationInfoAdmission {
				marker = i.Value
			}
		}
		w.ops[app.Name] = append(w.ops[app.Name], strings.TrimSpace(op.InitiatedBy.Username+" "+marker))
	}
	w.pending[app.Name] = app.Operation != nil
}
