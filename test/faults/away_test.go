//go:build e2e

package faults

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// awaySpec is the phased spec of rollout at version with onFailure stop and prod-half and
// prod bounded by a progressDeadline of deadline.
func awaySpec(rollout, version, deadline string) string {
	s := strings.ReplaceAll(framework.PhasedSpec(rollout, version, env.Git.URL), "action: rollback", "action: stop")
	for _, ph := range []string{"prod-half", "prod"} {
		s = strings.Replace(s, "      - name: "+ph+"\n", "      - name: "+ph+"\n        progressDeadline: "+deadline+"\n", 1)
	}
	return s
}

// commitAway commits rollout's spec at version and its workload, and announces it.
func commitAway(ctx context.Context, t *testing.T, rollout, version, deadline string, first bool) {
	t.Helper()
	files := map[string]string{rollout + "/app/appset.yaml": awaySpec(rollout, version, deadline),
		rollout + "/" + version + "/cm.yaml": framework.Workload(rollout, version)}
	if _, err := env.Git.Commit(rollout+": "+version, files); err != nil {
		t.Fatal(err)
	}
	if first {
		if err := env.NewParent(ctx, rollout, rollout+"/app", 0); err != nil {
			t.Fatal(err)
		}
		return
	}
	_ = env.Refresh(ctx, rollout, false)
}

// TestAManagedClusterThatGoesAwayLosesNothing: prod-1 and prod-2 run API servers of their
// own, reached with identities of their own, under Argo CD's real application controller.
//  1. prod-1's API server is killed while staging soaks, so prod-half admits prod-1 while
//     it is away. For as long as it is away the rollout never counts it Done and its child
//     stays; it comes back within the phase's progressDeadline and the rollout completes
//     with v2 in every cluster.
//  2. prod-2's credentials are revoked (its identity's binding deleted) before v3 reaches
//     prod: its sync is refused, the rollout stops by onFailure without counting prod-2
//     Done, and prod-2's child and workload stay on v2, neither deleted nor pruned.
func TestAManagedClusterThatGoesAwayLosesNothing(t *testing.T) {
	ctx := context.Background()
	const rollout = "away"
	sup := superviseAgent(t, env.Kubeconfig)
	defer sup.stop()
	commitAway(ctx, t, rollout, "v1", "4m", true)
	waitRolloutOf(t, rollout, 5*time.Minute, "v1 deployed", func(st *state.State) bool { return st.Rollout.Status == state.RolloutCompleted })

	commitAway(ctx, t, rollout, "v2", "4m", false)
	waitRolloutOf(t, rollout, 3*time.Minute, "v2 reaches staging", func(st *state.State) bool {
		return st.Rollout.Revision != st.Deployed && st.Rollout.Phase == 1 && len(st.Rollout.Phases[1].Admitted) > 0
	})
	if err := env.StopClusterAPIServer("prod-1"); err != nil {
		t.Fatal(err)
	}
	waitRolloutOf(t, rollout, 2*time.Minute, "a prod phase admits prod-1 while it is away", func(st *state.State) bool {
		r := st.Rollout
		return r.Phase >= 2 && r.Phase < len(r.Phases) && slices.Contains(r.Phases[r.Phase].Admitted, rollout+"-prod-1")
	})
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(time.Second) {
		neverDoneWhileAway(ctx, t, rollout, "prod-1")
	}
	if err := env.StartClusterAPIServer(ctx, "prod-1"); err != nil {
		t.Fatal(err)
	}
	st := waitRolloutOf(t, rollout, 5*time.Minute, "v2 completes once prod-1 is back", func(st *state.State) bool {
		return st.Rollout.Status.IsTerminal()
	})
	if st.Rollout.Status != state.RolloutCompleted {
		t.Fatalf("a cluster back within the deadline stopped the rollout: %s: %s", st.Rollout.Status, st.Rollout.Reason)
	}
	runsEverywhere(ctx, t, rollout, "v2")

	if err := env.RevokeCluster(ctx, "prod-2"); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.RestoreCluster(ctx, "prod-2") }()
	commitAway(ctx, t, rollout, "v3", "2m", false)
	st = waitRolloutOf(t, rollout, 6*time.Minute, "v3 ends at prod-2's refusal", func(st *state.State) bool {
		return st.Rollout.Revision != st.Deployed && st.Rollout.Status.IsTerminal()
	})
	if r := st.Rollout; r.Status != state.RolloutStopped {
		t.Fatalf("a cluster refusing Argo CD's credentials: %s phase %d: %s", r.Status, r.Phase, r.Reason)
	}
	for _, ph := range st.Rollout.Phases {
		if cs, ok := ph.Clusters[rollout+"-prod-2"]; ok && cs.Status == state.ClusterDone {
			t.Fatalf("prod-2 counted Done in %s while it refuses Argo CD", ph.Name)
		}
	}
	child(ctx, t, rollout+"-prod-2") // still there
	cm, err := env.ClusterKube("prod-2").CoreV1().ConfigMaps("prod-2").Get(ctx, rollout, metav1.GetOptions{})
	if err != nil || cm.Data["version"] != "v2" {
		t.Fatalf("prod-2's workload is not v2 any more: %v %v", cm, err)
	}
	fmt.Printf("cluster away: prod-1 back within its deadline, rollout completed; prod-2 refused, rollout %s: %s\n", st.Rollout.Status, st.Rollout.Reason)
	awayPastTheDeadline(ctx, t, rollout)
}

// awayPastTheDeadline is part 3 of TestAManagedClusterThatGoesAwayLosesNothing: prod-1's
// API server goes away before v4 reaches prod and stays away past prod-half's
// progressDeadline. The deadline ends the wait (a cluster away is not waited for without
// end): prod-1 Errored, the rollout Stopped by onFailure, the reason naming prod-1 and the
// deadline, and prod-1's child still there.
func awayPastTheDeadline(ctx context.Context, t *testing.T, rollout string) {
	t.Helper()
	v3 := waitRolloutOf(t, rollout, time.Minute, "the state", func(*state.State) bool { return true }).Rollout.Revision
	if err := env.RestoreCluster(ctx, "prod-2"); err != nil {
		t.Fatal(err)
	}
	if err := env.StopClusterAPIServer("prod-1"); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.StartClusterAPIServer(ctx, "prod-1") }()
	commitAway(ctx, t, rollout, "v4", "45s", false)
	st := waitRolloutOf(t, rollout, 6*time.Minute, "v4 ends at prod-half's deadline", func(st *state.State) bool {
		return st.Rollout.Revision != v3 && st.Rollout.Status.IsTerminal()
	})
	r := st.Rollout
	if r.Status != state.RolloutStopped || !strings.Contains(r.Reason, rollout+"-prod-1") || !strings.Contains(r.Reason, "progressDeadline 45s") {
		t.Fatalf("a cluster away past its deadline: %s phase %d: %s", r.Status, r.Phase, r.Reason)
	}
	if cs := r.Phases[2].Clusters[rollout+"-prod-1"]; cs.Status != state.ClusterErrored {
		t.Fatalf("prod-1 in %s: %+v", r.Phases[2].Name, cs)
	}
	child(ctx, t, rollout+"-prod-1") // still there
	fmt.Printf("cluster away past its deadline: rollout %s: %s\n", r.Status, r.Reason)
}

// neverDoneWhileAway fails when the state counts cluster Done in a phase, the rollout
// ends, or the cluster's child is gone, while its API server is away.
func neverDoneWhileAway(ctx context.Context, t *testing.T, rollout, cluster string) {
	t.Helper()
	st := waitRolloutOf(t, rollout, time.Minute, "the state", func(*state.State) bool { return true })
	for _, ph := range st.Rollout.Phases {
		if cs, ok := ph.Clusters[rollout+"-"+cluster]; ok && cs.Status == state.ClusterDone {
			t.Fatalf("%s counted Done in %s while its API server is away", cluster, ph.Name)
		}
	}
	if st.Rollout.Status.IsTerminal() {
		t.Fatalf("the rollout ended while %s is away: %s: %s", cluster, st.Rollout.Status, st.Rollout.Reason)
	}
	child(ctx, t, rollout+"-"+cluster)
}

// runsEverywhere fails unless every cluster's own API server has the workload at version.
func runsEverywhere(ctx context.Context, t *testing.T, rollout, version string) {
	t.Helper()
	for _, c := range env.Clusters {
		cm, err := env.ClusterKube(c.Name).CoreV1().ConfigMaps(c.Name).Get(ctx, rollout, metav1.GetOptions{})
		if err != nil || cm.Data["version"] != version {
			t.Fatalf("%s does not run %s: %v %v", c.Name, version, cm, err)
		}
	}
}

// TestASlowClusterIsWaitedForNotJudged: every chunk sent to prod-1's API server waits 1 s
// while v2 rolls out. The rollout completes, and the state never counts prod-1 Done before
// its own API server has the v2 workload: slowness is waited for, not judged or skipped.
func TestASlowClusterIsWaitedForNotJudged(t *testing.T) {
	ctx := context.Background()
	const rollout = "slow"
	sup := superviseAgent(t, env.Kubeconfig)
	defer sup.stop()
	commitAway(ctx, t, rollout, "v1", "6m", true)
	v1 := waitRolloutOf(t, rollout, 5*time.Minute, "v1 deployed", func(st *state.State) bool { return st.Rollout.Status == state.RolloutCompleted }).Deployed
	if err := env.SlowCluster("prod-1", time.Second); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.SlowCluster("prod-1", 0) }()
	commitAway(ctx, t, rollout, "v2", "6m", false)
	st := waitRolloutOf(t, rollout, 8*time.Minute, "v2 ends with prod-1 slow", func(st *state.State) bool {
		if st.Rollout.Revision == v1 {
			return false
		}
		doneOnlyWhenThere(ctx, t, st, rollout, "prod-1", "v2")
		return st.Rollout.Status.IsTerminal()
	})
	if st.Rollout.Status != state.RolloutCompleted {
		t.Fatalf("a slow cluster ended the rollout: %s: %s", st.Rollout.Status, st.Rollout.Reason)
	}
	runsEverywhere(ctx, t, rollout, "v2")
	op := child(ctx, t, rollout+"-prod-1").Status.OperationState
	if op == nil || op.FinishedAt == nil || op.FinishedAt.Sub(op.StartedAt.Time) < 2*time.Second {
		t.Fatalf("prod-1's sync was not slowed (%+v): the test proved nothing", op)
	}
	fmt.Printf("slow cluster: v2 completed with every chunk to prod-1 held 1 s (its sync took %s)\n", op.FinishedAt.Sub(op.StartedAt.Time))
}

// doneOnlyWhenThere fails when the state counts cluster Done while its own API server
// does not have the workload at version.
func doneOnlyWhenThere(ctx context.Context, t *testing.T, st *state.State, rollout, cluster, version string) {
	t.Helper()
	for _, ph := range st.Rollout.Phases {
		if cs, ok := ph.Clusters[rollout+"-"+cluster]; ok && cs.Status == state.ClusterDone {
			cm, err := env.ClusterKube(cluster).CoreV1().ConfigMaps(cluster).Get(ctx, rollout, metav1.GetOptions{})
			if err != nil || cm.Data["version"] != version {
				t.Fatalf("%s counted Done before its API server has %s: %v %v", cluster, version, cm, err)
			}
		}
	}
}
