//go:build e2e

package faults

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// deadlineSpec is the e2e phased spec of rollout at version, dev with a progressDeadline
// far longer than the tests wait: a verdict they see is not the deadline's.
func deadlineSpec(rollout, version string) string {
	return strings.Replace(framework.PhasedSpec(rollout, version, env.Git.URL),
		"      - name: dev\n", "      - name: dev\n        progressDeadline: 15m\n", 1)
}

// deploy commits rollout's spec at version with its workloads and waits until the rollout
// of it completed (the first one: a parent created).
func deploy(ctx context.Context, t *testing.T, rollout, version string, workloads map[string]string, first bool) {
	t.Helper()
	files := map[string]string{rollout + "/app/appset.yaml": deadlineSpec(rollout, version)}
	for k, v := range workloads {
		files[k] = v
	}
	if _, err := env.Git.Commit(rollout+": "+version, files); err != nil {
		t.Fatal(err)
	}
	if first {
		if err := env.NewParent(ctx, rollout, rollout+"/app", 0); err != nil {
			t.Fatal(err)
		}
	} else {
		_ = env.Refresh(ctx, rollout, false)
	}
}

// waitRolloutOf waits until rollout's state satisfies ok.
func waitRolloutOf(t *testing.T, rollout string, timeout time.Duration, what string, ok func(*state.State) bool) *state.State {
	t.Helper()
	var last *state.State
	env.WaitFor(t, timeout, what, func(ctx context.Context) (bool, string) {
		cm, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Get(ctx, contract.StateConfigMap(rollout), metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		st, err := state.FromConfigMap(cm)
		if err != nil || st.Rollout == nil {
			return false, fmt.Sprint("no rollout yet: ", err)
		}
		last = st
		return ok(st), fmt.Sprintf("%s phase %d: %s", st.Rollout.Status, st.Rollout.Phase, st.Rollout.Reason)
	})
	return last
}

func child(ctx context.Context, t *testing.T, name string) *v1alpha1.Application {
	t.Helper()
	app, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return app
}

func attemptOf(app *v1alpha1.Application) int {
	if op := app.Status.OperationState; op != nil {
		for _, i := range op.Operation.Info {
			if i != nil && i.Name == contract.OperationInfoAttempt {
				n, _ := strconv.Atoi(i.Value)
				return n
			}
		}
	}
	return 0
}

// TestASyncCutByAClusterRestartIsRetriedAndTheRolloutGoesOn: dev-1's API server goes away
// (its connections reset, new ones closed) right as v2 is committed and stays away for 25 s,
// so dev-1's sync runs into it and Argo CD records it failed. The agent retries it with
// backoff, the cluster comes back, the sync succeeds and the rollout completes: the last
// operation on dev-1 is the agent's retry (attempt 2 or later).
func TestASyncCutByAClusterRestartIsRetriedAndTheRolloutGoesOn(t *testing.T) {
	ctx := context.Background()
	const rollout = "cut"
	sup := superviseAgent(t, env.Kubeconfig)
	defer sup.stop()
	deploy(ctx, t, rollout, "v1", map[string]string{rollout + "/v1/cm.yaml": framework.Workload(rollout, "v1"), rollout + "/v2/cm.yaml": framework.Workload(rollout, "v2")}, true)
	v1 := waitRolloutOf(t, rollout, 5*time.Minute, "v1 deployed", func(st *state.State) bool { return st.Rollout.Status == state.RolloutCompleted }).Deployed

	if err := env.CutCluster("dev-1", 25*time.Second); err != nil {
		t.Fatal(err)
	}
	deploy(ctx, t, rollout, "v2", nil, false)
	st := waitRolloutOf(t, rollout, 6*time.Minute, "v2 completes through the cut", func(st *state.State) bool {
		return st.Rollout.Revision != v1 && st.Rollout.Status.IsTerminal()
	})
	if st.Rollout.Status != state.RolloutCompleted {
		t.Fatalf("a cut sync stopped the rollout: %s: %s", st.Rollout.Status, st.Rollout.Reason)
	}
	app := child(ctx, t, rollout+"-dev-1")
	if n := attemptOf(app); n < 2 {
		t.Fatalf("dev-1's sync was not cut (its last operation is attempt %d: %s): the test proved nothing; cut longer", n, app.Status.OperationState.Message)
	}
	for _, c := range env.Clusters {
		cm, err := env.ClusterKube(c.Name).CoreV1().ConfigMaps(c.Name).Get(ctx, rollout, metav1.GetOptions{})
		if err != nil || cm.Data["version"] != "v2" {
			t.Fatalf("%s does not run v2: %v %v", c.Name, cm, err)
		}
	}
	fmt.Printf("cut sync: dev-1 synced at attempt %d; rollout %s\n", attemptOf(app), st.Rollout.Status)
}

// TestAPermanentApplyErrorStillStopsTheRolloutAtOnce: v2's manifest is refused by the API
// server (an invalid ConfigMap key); the rollout stops on dev's first sync, long before
// dev's progressDeadline, and the agent never syncs it again.
func TestAPermanentApplyErrorStillStopsTheRolloutAtOnce(t *testing.T) {
	ctx := context.Background()
	const rollout = "invalid"
	sup := superviseAgent(t, env.Kubeconfig)
	defer sup.stop()
	bad := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + rollout + "\ndata:\n  version: v2\n  'not a valid key': x\n"
	deploy(ctx, t, rollout, "v1", map[string]string{rollout + "/v1/cm.yaml": framework.Workload(rollout, "v1"), rollout + "/v2/cm.yaml": bad}, true)
	waitRolloutOf(t, rollout, 5*time.Minute, "v1 deployed", func(st *state.State) bool { return st.Rollout.Status == state.RolloutCompleted })

	deploy(ctx, t, rollout, "v2", nil, false)
	st := waitRolloutOf(t, rollout, 3*time.Minute, "v2 stops on dev", func(st *state.State) bool {
		return st.Rollout.Revision != st.Deployed && st.Rollout.Status.IsTerminal()
	})
	r := st.Rollout
	if r.Status != state.RolloutStopped || r.Phase != 0 {
		t.Fatalf("an invalid manifest stops the rollout in dev: %s phase %d: %s", r.Status, r.Phase, r.Reason)
	}
	failed := 0
	for _, cs := range r.Phases[0].Clusters {
		if cs.Status == state.ClusterFailed && strings.Contains(cs.Reason, "sync Failed") {
			failed++
		}
	}
	if failed == 0 {
		t.Fatalf("dev's clusters failed on the sync: %+v", r.Phases[0].Clusters)
	}
	for _, c := range []string{"dev-1", "dev-2"} {
		if n := attemptOf(child(ctx, t, rollout+"-"+c)); n != 0 {
			t.Fatalf("a permanent error is never retried: %s's last sync is attempt %d", c, n)
		}
	}
}
