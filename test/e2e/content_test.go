//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// overlaySpec is framework.PhasedSpec with children that deploy one kustomize overlay at
// HEAD, ROLLOUT/deploy, whose base ROLLOUT/base lies outside the child's path and is named
// in Argo CD's manifest-generate-paths annotation. The spec never changes: every rollout
// below comes from a commit to what the children deploy.
func overlaySpec(rollout string) string {
	s := framework.PhasedSpec(rollout, "unused", env.Git.URL)
	s = strings.Replace(s, "path: '"+rollout+"/{{values.version}}'", "path: "+rollout+"/deploy", 1)
	return strings.Replace(s, "      name: '"+rollout+"-{{name}}'\n", "      name: '"+rollout+"-{{name}}'\n      annotations:\n        argocd.argoproj.io/manifest-generate-paths: .;../base\n", 1)
}

// commitContent commits files under the rollout's directory and returns the revision a
// render of the new head computes, and the commit.
func (r *phased) commitContent(label string, files map[string]string) (string, string) {
	r.t.Helper()
	full := map[string]string{}
	for p, body := range files {
		full[r.name+"/"+p] = body
	}
	sha, err := env.Git.Commit(r.name+": "+label, full)
	if err != nil {
		r.t.Fatal(err)
	}
	rev, _ := revisionOf(r.t, overlaySpec(r.name))
	r.versions[rev] = label
	return rev, sha
}

func base(rollout, version, degradedIn string) map[string]string {
	cm := framework.Workload(rollout, version)
	if degradedIn != "" {
		cm = framework.DegradedWorkload(rollout, version, degradedIn)
	}
	return map[string]string{"base/kustomization.yaml": "resources: [cm.yaml]\n", "base/cm.yaml": cm}
}

// pinnedTo is the commit every child's source is pinned to; it fails unless all agree with
// the state's revision of each.
func (r *phased) pinnedTo(ctx context.Context) map[string]string {
	r.t.Helper()
	st, err := r.state(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range env.Clusters {
		a, err := env.App(ctx, r.name+"-"+c.Name)
		if err != nil {
			r.t.Fatal(err)
		}
		rev, _, _ := st.RevisionOf(a.Name)
		if want := spec.CommitOf(st.Revisions[rev]); a.Spec.Source.TargetRevision != want || want == "" {
			r.t.Fatalf("%s is at %q, its revision %s pins %q", a.Name, a.Spec.Source.TargetRevision, rev, want)
		}
		out[a.Name] = a.Spec.Source.TargetRevision
	}
	return out
}

// syncedCommitOnce checks every child synced commit exactly once.
func (r *phased) syncedCommitOnce(ctx context.Context, commit string) {
	r.t.Helper()
	r.syncedOnceWhere(ctx, "commit "+commit[:7], func(h v1alpha1.RevisionHistory) bool { return h.Revision == commit })
}

// TestEveryCommitIsPhased: children deploy a kustomize overlay at HEAD from the parent's
// repository. A commit that changes only the base (outside the children's path, named in
// manifest-generate-paths) rolls out dev → staging → prod like a spec change, and at every
// observation no cluster outside the admitted set runs the new content; an unrelated commit
// starts no rollout and moves nobody; a content commit that makes prod-2 Degraded rolls
// every admitted cluster back to the previous commit's content. Each child syncs each
// commit it is pinned to exactly once.
func TestEveryCommitIsPhased(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "content", "rollback")
	// with argocd-server's API: the agent warms the manifests of the children it admits next
	token, err := env.APITokenFile(ctx, "cmp-phase")
	if err != nil {
		t.Fatal(err)
	}
	defer r.agent("agent-content", nil, "--argocd-server", "http://"+env.ArgoServer, "--argocd-token-file", token).Stop(5 * time.Second)
	files := base(r.name, "v1", "")
	files["app/appset.yaml"] = overlaySpec(r.name)
	files["deploy/kustomization.yaml"] = "resources: [../base]\n"
	r1, _ := r.commitContent("v1", files)
	newParent(ctx, t, r.name, r.name+"/app", 0)
	r.until("the first deployment completes with every cluster on v1", r1, rollout.StatusCompleted, everywhere("v1"))
	pins := r.pinnedTo(ctx)

	// An unrelated commit: the parent renders it, nothing moves.
	gen := r.generation(ctx)
	_, unrelated := r.commitContent("docs", map[string]string{"docs/README.md": "how to deploy\n"})
	r.renders(ctx, unrelated)
	if st, _ := r.state(ctx); st.Generation != gen || st.Deployed != r1 || st.Rollout.Revision != r1 {
		t.Fatalf("an unrelated commit starts no rollout: generation %d→%d, deployed %s", gen, st.Generation, st.Deployed)
	}
	if now := r.pinnedTo(ctx); fmt.Sprint(now) != fmt.Sprint(pins) {
		t.Fatalf("an unrelated commit moves nobody: %v → %v", pins, now)
	}

	// Only the base changes: a rollout, phase by phase, the new content nowhere early.
	r.fresh = "v2"
	r2, _ := r.commitContent("v2", base(r.name, "v2", ""))
	if r2 == r1 {
		t.Fatal("a change to the base is a new revision")
	}
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	r.until("the base change (v2) rolls out", r2, rollout.StatusCompleted, everywhere("v2"))
	if warmed, failed := r.counter(`cmp_phase_manifest_warms_total{result="warmed"}`), r.counter(`cmp_phase_manifest_warms_total{result="failed"}`); warmed < 1 || failed != 0 {
		t.Fatalf("the agent warms the next children's manifests through argocd-server: %v warmed, %v failed", warmed, failed)
	}
	r.syncedCommitOnce(ctx, pins[r.name+"-dev-1"])
	r.syncedCommitOnce(ctx, r.pinnedTo(ctx)[r.name+"-dev-1"])

	// A content commit that makes prod-2 Degraded: every admitted cluster returns to v2.
	r.fresh = "v3"
	r3, _ := r.commitContent("v3", base(r.name, "v3", "prod-2"))
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	r.until("the Degraded content rolls back to v2", r3, rollout.StatusRolledBack, everywhere("v2"))
	st, _ := r.state(ctx)
	for child, c := range r.pinnedTo(ctx) {
		if want := spec.CommitOf(st.Revisions[st.Deployed]); c != want {
			t.Fatalf("%s is pinned to %.7s after the rollback, want the previous commit %.7s", child, c, want)
		}
	}
}

func (r *phased) generation(ctx context.Context) int64 {
	r.t.Helper()
	st, err := r.state(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	return st.Generation
}

// renders refreshes the parent and waits until it has rendered commit (or a later one) and is
// Synced.
func (r *phased) renders(ctx context.Context, commit string) {
	r.t.Helper()
	if err := env.Refresh(ctx, r.name, false); err != nil {
		r.t.Fatal(err)
	}
	env.WaitFor(r.t, 2*time.Minute, "the parent renders "+commit[:7], func(ctx context.Context) (bool, string) {
		p, err := env.App(ctx, r.name)
		if err != nil {
			return false, err.Error()
		}
		ok, s := framework.AppSyncedHealthy(p)
		return ok && p.Status.Sync.Revision != "" && isAncestor(commit, p.Status.Sync.Revision), s + " at " + p.Status.Sync.Revision
	})
}

// isAncestor reports whether the repository has commit at or before head.
func isAncestor(commit, head string) bool {
	return commit == head || env.Git.IsAncestor(commit, head)
}

// TestUpgradePinsEveryChildWithoutARollout: a rollout from before pinned commits — its
// state deploys the spec-only revision, its children follow HEAD and run v1 — meets the
// agent: every child is pinned to the commit the parent rendered, all at once, with no
// rollout and no sync (the manifests do not change), and keeps running v1.
func TestUpgradePinsEveryChildWithoutARollout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "upgrade", "rollback")
	r.commit("v1", map[string]string{"v1": framework.Workload(r.name, "v1")})
	s, err := spec.Parse("appset.yaml", []byte(r.spec("v1")), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	_, legacyBody, legacy, _ := s.Revision()
	var children []string
	for _, c := range env.Clusters {
		children = append(children, r.name+"-"+c.Name)
	}
	slices.Sort(children)
	putState(ctx, t, r.name, &state.State{Schema: state.Schema, Generation: 1, Deployed: legacy, Children: children,
		Revisions: map[string]json.RawMessage{legacy: legacyBody}})
	newParent(ctx, t, r.name, r.name+"/app", 1)
	r.runs("the children of the old state run v1, unpinned", "v1")
	for _, c := range children {
		if a, _ := env.App(ctx, c); a.Spec.Source.TargetRevision != "HEAD" {
			t.Fatalf("before the upgrade %s follows HEAD, not %q", c, a.Spec.Source.TargetRevision)
		}
	}

	defer r.agent("agent-upgrade", nil).Stop(5 * time.Second)
	env.WaitFor(t, 3*time.Minute, "the agent pins every child", func(ctx context.Context) (bool, string) {
		st, err := r.state(ctx)
		if err != nil {
			return false, err.Error()
		}
		if st.Rollout != nil {
			t.Fatalf("the upgrade started a rollout: %+v", st.Rollout)
		}
		commit := spec.CommitOf(st.Revisions[st.Deployed])
		for _, c := range children {
			a, err := env.App(ctx, c)
			if err != nil {
				return false, err.Error()
			}
			if a.Spec.Source.TargetRevision != commit || commit == "" {
				return false, fmt.Sprintf("%s at %q, deployed %s pins %q", c, a.Spec.Source.TargetRevision, st.Deployed, commit)
			}
			if ok, s := framework.AppSyncedHealthy(a); !ok {
				return false, s
			}
		}
		return true, ""
	})
	r.eventually(rollout.EvRevisionPinned)
	r.runs("every child still runs v1", "v1")
	for _, c := range children {
		if a, _ := env.App(ctx, c); len(a.Status.History) != 1 {
			t.Errorf("%s synced again for the upgrade: %s", c, historyOf(a))
		}
	}
}

// runs waits until every child is Synced and Healthy and its cluster runs version.
func (r *phased) runs(what, version string) {
	r.t.Helper()
	env.WaitFor(r.t, 3*time.Minute, what, func(ctx context.Context) (bool, string) {
		for _, c := range env.Clusters {
			a, err := env.App(ctx, r.name+"-"+c.Name)
			if err != nil {
				return false, err.Error()
			}
			if ok, s := framework.AppSyncedHealthy(a); !ok {
				return false, s
			}
			if cm, err := env.Kube.CoreV1().ConfigMaps(c.Name).Get(ctx, r.name, metav1.GetOptions{}); err != nil || cm.Data["version"] != version {
				return false, fmt.Sprintf("%s not on %s", c.Name, version)
			}
		}
		return true, ""
	})
}
