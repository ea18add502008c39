//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestAgentCrashResume: the agent is killed right after every state write of a 4-phase
// first deployment (and once right before a write), and a new one started each time; the
// rollout completes with the history of an uninterrupted run and no phase admitted twice.
func TestAgentCrashResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "crashy", "rollback")
	rev := r.commit("v1", map[string]string{"v1": framework.Workload(r.name, "v1")})
	newParent(ctx, t, r.name, r.name+"/app", 0)
	crashes := 0
	deadline := time.Now().Add(6 * time.Minute)
	for i := 0; ; i++ {
		fault := "exit-after-write"
		if i == 4 {
			fault = "exit-before-write"
		}
		// The same identity, as a restarted container in the same pod: it takes the Lease back at once.
		p := r.agent(fmt.Sprintf("agent-crashy-%d", i), []string{"CMP_PHASE_AGENT_FAULT=" + fault}, "--identity", "crashy")
		done := r.waitExitOrDone(ctx, p, deadline)
		p.Kill()
		if done {
			break
		}
		crashes++
	}
	r.until("the crash-resumed rollout completes", rev, rollout.StatusCompleted, everywhere("v1"))
	st, _ := r.state(ctx)
	var got []string
	for _, e := range st.Rollout.History {
		got = append(got, e.Event)
	}
	want := []string{rollout.EvRolloutStarted,
		rollout.EvPhaseStarted, rollout.EvPhaseSucceeded,
		rollout.EvPhaseStarted, rollout.EvPhaseSoaking, rollout.EvPhaseSucceeded,
		rollout.EvPhaseStarted, rollout.EvPhaseSucceeded,
		rollout.EvPhaseStarted, rollout.EvPhaseSucceeded, rollout.EvRolloutCompleted}
	if !slices.Equal(got, want) {
		t.Fatalf("history after %d crashes\n got %v\nwant %v", crashes, got, want)
	}
	seen := map[string]string{}
	for _, ph := range st.Rollout.Phases {
		for _, c := range ph.Admitted {
			if prev, twice := seen[c]; twice {
				t.Fatalf("%s admitted by %s and again by %s", c, prev, ph.Name)
			}
			seen[c] = ph.Name
		}
	}
	if crashes < 8 {
		t.Fatalf("only %d crashes: the test did not cover every transition", crashes)
	}
	r.syncedOnce(ctx, "v1")
	t.Logf("completed after %d crashes", crashes)
}

// waitExitOrDone waits until the agent exits (an injected crash) or the rollout completed.
func (r *phased) waitExitOrDone(ctx context.Context, p *framework.Proc, deadline time.Time) bool {
	r.t.Helper()
	for time.Now().Before(deadline) {
		select {
		case <-p.Wait():
			return false
		case <-time.After(200 * time.Millisecond):
		}
		if st, err := r.state(ctx); err == nil && st.Rollout != nil && st.Rollout.Status == rollout.StatusCompleted {
			return true
		}
	}
	r.t.Fatalf("no crash and no completion by the deadline:\n%s", p.Tail(3000))
	return false
}

// TestTwoAgentsOneLeader: two agents stand for the same Lease; only the leader writes.
// Killing the leader (SIGKILL: no release) hands the rollout to the other within 20 s and
// the rollout completes.
func TestTwoAgentsOneLeader(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "paired", "rollback")
	agents := map[string]*framework.Proc{}
	for _, id := range []string{"paired-a", "paired-b"} {
		agents[id] = r.agent("agent-"+id, nil, "--identity", id)
		defer agents[id].Stop(5 * time.Second)
	}
	rev := r.commit("v1", map[string]string{"v1": framework.Workload(r.name, "v1")})
	newParent(ctx, t, r.name, r.name+"/app", 0)
	env.WaitFor(t, 3*time.Minute, "the rollout passes dev", func(ctx context.Context) (bool, string) {
		st, err := r.state(ctx)
		if err != nil || st.Rollout == nil {
			return false, fmt.Sprint(err)
		}
		return st.Rollout.Phase >= 1, fmt.Sprintf("phase %d", st.Rollout.Phase)
	})
	leader := r.leaseHolder(ctx)
	standby := "paired-a"
	if leader == standby {
		standby = "paired-b"
	}
	if agents[leader] == nil {
		t.Fatalf("the Lease is held by %q", leader)
	}
	if log := readLog(t, agents[standby]); strings.Contains(log, "state written") {
		t.Fatalf("the standby wrote state while not leading:\n%s", log)
	}
	killed := time.Now()
	agents[leader].Kill()
	env.WaitFor(t, time.Minute, "the standby takes the Lease", func(ctx context.Context) (bool, string) {
		h := r.leaseHolder(ctx)
		return h == standby, "held by " + h
	})
	if took := time.Since(killed); took > 20*time.Second {
		t.Fatalf("hand-over took %s, want at most 20s", took)
	} else {
		t.Logf("hand-over took %s", took.Round(100*time.Millisecond))
	}
	r.until("the rollout completes under the new leader", rev, rollout.StatusCompleted, everywhere("v1"))
}

func (r *phased) leaseHolder(ctx context.Context) string {
	l, err := env.Kube.CoordinationV1().Leases(framework.ArgoNamespace).Get(ctx, "cmp-phase-agent-"+r.name, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func readLog(t *testing.T, p *framework.Proc) string {
	b, err := os.ReadFile(p.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
