//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
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
	for phase, want := range [][]string{{"dev-1", "dev-2"}, {"staging-1", "staging-2"}, {"prod-1"}, {"prod-2"}} {
		st := r.waitState("phase "+strconv.Itoa(phase)+" is admitted", func(st *state.State) bool {
			return st.Rollout.Phase == phase && len(st.Rollout.Phases[phase].Admitted) > 0
		})
		r.waitOutOfSync(ctx, st.ViewGeneration)
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
	// The wait is generous: with the whole suite running in parallel on two cores the
	// application controller can take over a minute to end a sync of the fleet's parent.
	if out, err := env.ArgoCDCLI(ctx, "app", "sync", r.name, "--timeout", "180"); err != nil {
		r.t.Fatalf("argocd app sync: %v\n%s", err, out)
	}
}

// waitOutOfSync waits until the parent has rendered (at least) the render-relevant
// generation gen and shows the change.
func (r *phased) waitOutOfSync(ctx context.Context, gen int64) {
	r.t.Helper()
	env.WaitFor(r.t, time.Minute, "the parent shows the admitted phase", func(ctx context.Context) (bool, string) {
		p, err := env.App(ctx, r.name)
		if err != nil {
			return false, err.Error()
		}
		return p.Status.Sync.Status == v1alpha1.SyncStatusCodeOutOfSync && phaseGenOf(p) >= gen, fmt.Sprintf("%s at %s %d", p.Status.Sync.Status, contract.EnvPhaseGen, phaseGenOf(p))
	})
}

func phaseGenOf(p *v1alpha1.Application) int64 {
	for _, e := range p.Spec.Source.Plugin.Env {
		if e.Name == contract.EnvPhaseGen {
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
	list, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).List(ctx, metav1.ListOptions{LabelSelector: contract.LabelRollout + "=" + r.name})
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[string]string{}
	for _, a := range list.Items {
		out[a.Name] = a.Annotations[contract.AnnotationRevision] + " " + string(a.Status.Sync.Status)
	}
	return out
}

// TestPreviewTheNextPhaseFromLocalFiles: for any parent, `argocd app diff <parent> --local
// <dir> --server-side-generate` with the preview marker in <dir> renders the next phase as
// if admitted: while the rollout is paused in staging's soak, the diff names exactly prod's
// first half, and nothing live changes.
func TestPreviewTheNextPhaseFromLocalFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if err := env.Login(ctx); err != nil {
		t.Fatal(err)
	}
	r := newPhased(t, "previewlocal", "rollback")
	defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
	rev := r.commit("v1", map[string]string{"v1": framework.Workload(r.name, "v1")})
	newParent(ctx, t, r.name, r.name+"/app", 0)
	r.waitState("staging soaks", func(st *state.State) bool { return st.Rollout.Phases[1].Status == state.PhaseSoaking })
	r.cli("pause", r.name, "--reason", "preview prod first")
	r.waitState("the pause is recorded", func(st *state.State) bool { return st.Paused != nil })
	local := t.TempDir() // the repository root, as argocd app diff --local takes it
	appDir := filepath.Join(local, r.name, "app")
	if err := os.MkdirAll(appDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(appDir, "appset.yaml"), []byte(r.spec("v1")), 0o644); err != nil {
		t.Fatal(err)
	}
	before := r.childVersions(ctx)
	plain, _ := env.ArgoCDCLI(ctx, "app", "diff", r.name, "--local", local, "--server-side-generate")
	if diffHeader.MatchString(plain) {
		t.Fatalf("without the marker the local render is the live one:\n%s", plain)
	}
	if err := os.WriteFile(filepath.Join(appDir, contract.PreviewMarker), []byte("# cmp-phase: preview the next phase\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := env.ArgoCDCLI(ctx, "app", "diff", r.name, "--local", local, "--server-side-generate")
	if err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("argocd app diff --local: %v\n%s", err, out)
	}
	var got []string
	for _, m := range diffHeader.FindAllStringSubmatch(out, -1) {
		got = append(got, strings.TrimPrefix(m[1], r.name+"-"))
	}
	if !slices.Equal(got, []string{"prod-1"}) {
		t.Fatalf("the preview names %v, want exactly the next batch [prod-1]:\n%s", got, out)
	}
	if after := r.childVersions(ctx); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a live child changed while previewing: %v → %v", before, after)
	}
	if out := r.cli("preview", r.name, "--dir", appDir); !strings.Contains(out, "+ "+r.name+"-prod-1 (new") || !strings.Contains(out, "1 children change") {
		t.Fatalf("cmp-phase preview:\n%s", out)
	}
	r.cli("resume", r.name, "--reason", "looks right")
	r.until("the rollout completes", rev, rollout.StatusCompleted, everywhere("v1"))
}
