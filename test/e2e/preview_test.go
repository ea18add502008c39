package e2e

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

var diffHeader = regexp.MustCompile(`===== argoproj.io/Application argocd/(\S+) ======`)

// TestPreviewEachPhaseWithArgoCDAppDiff: a parent without automated sync goes OutOfSync when
// the agent admits a phase; the real `argocd app diff` (logged in to the real argocd-server)
// shows exactly that phase's children and no other; nothing live changes until a person
// syncs the parent, which starts the phase.
func TestPreviewEachPhaseWithArgoCDAppDiff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if err := env.Login(ctx); err != nil {
		t.Fatal(err)
	}
	r := newPhased(t, "previewed", "rollback")
	defer r.agent("agent-"+r.name, nil, "--confirm-after", "5s").Stop(5 * time.Second)
	rev := r.commit("v1", map[string]string{"v1": framework.Workload(r.name, "v1")})
	if err := env.NewManualParent(ctx, r.name, r.name+"/app"); err != nil {
		t.Fatal(err)
	}
	r.sync(ctx) // the first sync applies the plan; the agent takes it from there
	for _, want := range [][]string{{"dev-1", "dev-2"}, {"staging-1", "staging-2"}, {"prod-1"}, {"prod-2"}} {
		st := r.waitState("the next phase is admitted", func(st *state.State) bool {
			return st.Rollout.Phase < len(st.Rollout.Phases) && len(st.Rollout.Phases[st.Rollout.Phase].Admitted) > 0 && !r.childrenExist(ctx, want)
		})
		r.waitOutOfSync(ctx, st.Generation)
		before := r.childVersions(ctx)
		out, err := env.ArgoCDCLI(ctx, "app", "diff", r.name)
		if err == nil || !strings.Contains(err.Error(), "exit status 1") { // 1: there are differences
			t.Fatalf("argocd app diff: %v\n%s", err, out)
		}
		var got []string
		for _, m := range diffHeader.FindAllStringSubmatch(out, -1) {
			got = append(got, strings.TrimPrefix(m[1], r.name+"-"))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("argocd app diff names %v, want exactly the next phase's %v:\n%s", got, want, out)
		}
		time.Sleep(3 * time.Second)
		if after := r.childVersions(ctx); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("a live child changed while previewing: %v → %v", before, after)
		}
		r.sync(ctx)
	}
	r.until("the previewed rollout completes", rev, rollout.StatusCompleted, everywhere("v1"))
}

func (r *phased) sync(ctx context.Context) {
	r.t.Helper()
	if out, err := env.ArgoCDCLI(ctx, "app", "sync", r.name, "--timeout", "60"); err != nil {
		r.t.Fatalf("argocd app sync: %v\n%s", err, out)
	}
}

// waitOutOfSync waits until the parent has rendered generation gen and shows the change.
func (r *phased) waitOutOfSync(ctx context.Context, gen int64) {
	r.t.Helper()
	env.WaitFor(r.t, time.Minute, "the parent shows the admitted phase", func(ctx context.Context) (bool, string) {
		p, err := env.App(ctx, r.name)
		if err != nil {
			return false, err.Error()
		}
		return p.Status.Sync.Status == v1alpha1.SyncStatusCodeOutOfSync && phaseGenOf(p) >= gen, fmt.Sprintf("%s at PHASE_GEN %d", p.Status.Sync.Status, phaseGenOf(p))
	})
}

func phaseGenOf(p *v1alpha1.Application) int64 {
	for _, e := range p.Spec.Source.Plugin.Env {
		if e.Name == "PHASE_GEN" {
			var n int64
			fmt.Sscan(e.Value, &n)
			return n
		}
	}
	return 0
}

// childrenExist reports whether all the named clusters' children exist already.
func (r *phased) childrenExist(ctx context.Context, clusters []string) bool {
	for _, c := range clusters {
		if _, err := env.App(ctx, r.name+"-"+c); err != nil {
			return false
		}
	}
	return true
}

// childVersions are the live children's resourceVersions and revisions.
func (r *phased) childVersions(ctx context.Context) map[string]string {
	list, err := env.Argo.ArgoprojV1alpha1().Applications("argocd").List(ctx, metav1.ListOptions{LabelSelector: render.LabelRollout + "=" + r.name})
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[string]string{}
	for _, a := range list.Items {
		out[a.Name] = a.Annotations[render.AnnotationRevision] + " " + string(a.Status.Sync.Status)
	}
	return out
}
