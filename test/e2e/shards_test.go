//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/shard"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// shardParent is the parent of shard k of the sharded rollout name.
func shardParent(name string, k int) string { return fmt.Sprintf("%s-%d", name, k) }

// trackOwners polls the children's Argo CD tracking annotation until stop is called and
// fails the test when a child is tracked by any parent but its shard's (shard.Of), or by
// two parents over time. The rollout's name is chosen so that every shard has children.
func trackOwners(ctx context.Context, t *testing.T, name string, n int) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var wrong []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			for _, c := range env.Clusters {
				child := name + "-" + c.Name
				a, err := env.App(ctx, child)
				if err != nil {
					continue
				}
				owner, _, _ := strings.Cut(a.Annotations["argocd.argoproj.io/tracking-id"], ":")
				if want := shardParent(name, shard.Of(child, n)); owner != "" && owner != want {
					mu.Lock()
					wrong = append(wrong, fmt.Sprintf("%s tracked by %s, its shard's parent is %s", child, owner, want))
					mu.Unlock()
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(300 * time.Millisecond):
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
		if len(wrong) > 0 {
			t.Fatalf("children rendered by a parent not their shard's:\n%s", strings.Join(wrong, "\n"))
		}
	}
}

// TestShardedParentsShareOneRollout: one spec rendered by 3 shard parents (SHARD=k/3) over
// the loopback fleet — dev spans shards 1 and 2, staging is shard 1's, prod shard 0's —
// rolls out phase by phase across the shards with one state. Deleting shard 2's parent
// while staging soaks holds the rollout past the soak's end, naming the shard (state,
// status); recreating the parent resumes it and it completes. No child is ever tracked by a
// parent other than its shard's.
func TestShardedParentsShareOneRollout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 3
	r := newPhased(t, "sharded-fleet", "rollback")
	counts := map[int]int{}
	for _, c := range env.Clusters {
		counts[shard.Of(r.name+"-"+c.Name, n)]++
	}
	if len(counts) != n {
		t.Fatalf("the rollout's name leaves a shard without children (%v): choose another", counts)
	}
	r.edit = func(s string) string {
		if strings.Count(s, "waitDuration: 10s") != 1 {
			t.Fatal("the phased spec no longer soaks staging for 10s")
		}
		return strings.Replace(s, "waitDuration: 10s", "waitDuration: 40s", 1)
	}
	defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
	rev := r.commit("v1", map[string]string{"v1": framework.Workload(r.name, "v1")})
	stop := trackOwners(ctx, t, r.name, n)
	defer stop()
	phases := r.scrapePhases(ctx)
	for k := range n {
		if err := env.NewParent(ctx, shardParent(r.name, k), r.name+"/app", 0, framework.WithShard(k, n)); err != nil {
			t.Fatal(err)
		}
	}
	st := r.waitState("staging soaks", func(st *state.State) bool {
		return st.Rollout.Phase == 1 && st.Rollout.Phases[1].Status == state.PhaseSoaking
	})
	soakEnd := *st.Rollout.Phases[1].SoakUntil
	gone := shardParent(r.name, 2)
	if err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Delete(ctx, gone, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("shard 2/3: parent %q missing", gone)
	r.waitState("the missing shard holds the rollout", func(st *state.State) bool { return strings.Contains(st.Rollout.Reason, want) })
	time.Sleep(time.Until(soakEnd.Add(8 * time.Second)))
	st, err := r.state(ctx)
	if err != nil || st.Rollout.Phase != 1 || len(st.Rollout.Phases[2].Admitted) != 0 || !strings.Contains(st.Rollout.Reason, want) {
		t.Fatalf("the missing shard did not hold the rollout past staging's soak: %v %+v", err, st.Rollout)
	}
	out := r.cli("status", r.name)
	for _, line := range []string{"SHARD", shardParent(r.name, 0), shardParent(r.name, 1), `parent "` + gone + `" missing`} {
		if !strings.Contains(out, line) {
			t.Fatalf("status does not show %q:\n%s", line, out)
		}
	}
	if err := env.NewParent(ctx, gone, r.name+"/app", st.Generation, framework.WithShard(2, n)); err != nil {
		t.Fatal(err)
	}
	r.until("the rollout resumes and completes across the shards", rev, rollout.StatusCompleted, everywhere("v1"))
	if seen := phases(); !slices.Equal(seen, []string{"1", "2", "3", "4"}) {
		t.Errorf("the phase gauge on /metrics went through %v, want every phase 1-4", seen)
	}
	st, _ = r.state(ctx)
	if strings.Contains(st.Rollout.Reason, "shard") {
		t.Fatalf("the hold's reason outlived it: %q", st.Rollout.Reason)
	}
}

// TestAShardedRolloutWarmsItsNextBatch: with argocd-server's API, the agent warms the
// manifests of the children a sharded rollout admits next, in whichever shard they are, as
// it does for a rollout of one parent (it warmed none of a sharded rollout's before). The
// children deploy the parent's repository at a pinned commit, so a commit to their content
// moves only their targetRevision: what a warm can prepare.
func TestAShardedRolloutWarmsItsNextBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 3
	r := newPhased(t, "sharded-warm", "rollback")
	token, err := env.APITokenFile(ctx, "cmp-phase")
	if err != nil {
		t.Fatal(err)
	}
	defer r.agent("agent-"+r.name, nil, "--argocd-server", "http://"+env.ArgoServer, "--argocd-token-file", token).Stop(5 * time.Second)
	files := base(r.name, "v1", "")
	files["app/appset.yaml"] = overlaySpec(r.name)
	files["deploy/kustomization.yaml"] = "resources: [../base]\n"
	v1, _ := r.commitContent("v1", files)
	for k := range n {
		if err := env.NewParent(ctx, shardParent(r.name, k), r.name+"/app", 0, framework.WithShard(k, n)); err != nil {
			t.Fatal(err)
		}
	}
	r.until("the first deployment completes across the shards", v1, rollout.StatusCompleted, everywhere("v1"))
	r.fresh = "v2"
	v2, _ := r.commitContent("v2", base(r.name, "v2", ""))
	for k := range n {
		if err := env.Refresh(ctx, shardParent(r.name, k), false); err != nil {
			t.Fatal(err)
		}
	}
	r.until("the content commit rolls out across the shards", v2, rollout.StatusCompleted, everywhere("v2"))
	if warmed, failed := r.counter(`cmp_phase_manifest_warms_total{result="warmed"}`), r.counter(`cmp_phase_manifest_warms_total{result="failed"}`); warmed < 1 || failed != 0 {
		t.Fatalf("the agent warms a sharded rollout's next children through argocd-server: %v warmed, %v failed", warmed, failed)
	}
}
