//go:build e2e

package faults

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/test/framework"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

const name = "faults"

// level is the suite's size: the short form (the test command) or the long one.
type level struct {
	rate     float64
	versions []string
}

func suiteLevel() level {
	if os.Getenv("CMP_PHASE_FAULTS") == "long" {
		return level{rate: 0.2, versions: []string{"v2", "v3", "v4", "v5"}}
	}
	return level{rate: 0.1, versions: []string{"v2"}}
}

// TestNothingIsLostUnderFaults drives phased rollouts with a pre-hook while the agent's API
// calls fail at the level's rate; during each later rollout the API server and etcd
// restart (when dev is admitted), the sidecar is killed and the repo-server restarted (at
// the first prod phase). Then 100 renders hit the plugin socket at once. Children lost,
// children on a revision the state never gave them, and hooks run again after their
// success was recorded must all be 0; every rollout must finish.
func TestNothingIsLostUnderFaults(t *testing.T) {
	ctx := context.Background()
	lv := suiteLevel()
	hooks := newHookServer(t)
	proxy, err := env.StartFaultProxy(lv.rate, 42)
	if err != nil {
		t.Fatal(err)
	}
	sup := superviseAgent(t, proxy.Kubeconfig)
	defer sup.stop()
	workloads := map[string]string{name + "/app/appset.yaml": spec("v1", hooks.url)}
	for _, v := range append([]string{"v1"}, lv.versions...) {
		workloads[name+"/"+v+"/cm.yaml"] = framework.Workload(name, v)
	}
	if _, err := env.Git.Commit(name+": v1", workloads); err != nil {
		t.Fatal(err)
	}
	if err := env.NewParent(ctx, name, name+"/app", 0); err != nil {
		t.Fatal(err)
	}
	mon := watchInvariants(ctx, t, hooks)
	finished := 0
	waitRunning(t, "v1")
	finished++
	restarts := 0
	for _, v := range lv.versions {
		if _, err := env.Git.Commit(name+": "+v, map[string]string{name + "/app/appset.yaml": spec(v, hooks.url)}); err != nil {
			t.Fatal(err)
		}
		_ = env.Refresh(ctx, name, false)
		restarts += disrupt(ctx, t)
		waitRunning(t, v)
		finished++
	}
	renders, failed := concurrentRenders(ctx, t, 100)
	mon.stop()
	f := mon.figures()
	fmt.Printf("fault suite: faults injected %v; restarts %d (API server+etcd, sidecar killed, repo-server) and agent restarts %d; rollouts finished %d of %d; children lost %d; children on an undecided revision %d; hooks run again after a recorded success %d; concurrent renders %d ok, %d failed\n",
		proxy.Injected(), restarts, sup.restarts(), finished, 1+len(lv.versions), f.lost, f.wrong, hooks.rerunsAfter(f.hookDone), renders, failed)
	if f.lost != 0 || f.wrong != 0 || hooks.rerunsAfter(f.hookDone) != 0 || failed != 0 {
		t.Fatalf("lost %d, wrong revision %d (%s), hook reruns %d, renders failed %d", f.lost, f.wrong, strings.Join(f.examples, "; "), hooks.rerunsAfter(f.hookDone), failed)
	}
	if total := sum(proxy.Injected()); total == 0 {
		t.Fatal("no fault was injected")
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// disrupt restarts the API server and etcd once dev is admitted, then kills the sidecar
// and restarts the repo-server at the first prod phase; it returns how many restarts.
func disrupt(ctx context.Context, t *testing.T) int {
	t.Helper()
	atPhase(t, 0)
	if err := env.RestartKube(ctx); err != nil {
		t.Fatal(err)
	}
	atPhase(t, 2)
	if err := env.KillPlugin(ctx, contract.PluginName); err != nil {
		t.Fatal(err)
	}
	if err := env.RestartRepoServer(ctx); err != nil {
		t.Fatal(err)
	}
	return 3
}
