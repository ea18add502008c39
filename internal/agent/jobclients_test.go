package agent

import (
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestJobClientsAreTheControlClusters: job hooks reach only the agent's own client and
// namespace, and reading them reads no Secret.
func TestJobClientsAreTheControlClusters(t *testing.T) {
	kube := fake.NewSimpleClientset()
	if c, ns := newJobClients(kube, "argocd").Control(); c != kubernetes.Interface(kube) || ns != "argocd" || len(kube.Actions()) != 0 {
		t.Fatalf("control %v %s, %d actions", c, ns, len(kube.Actions()))
	}
}

// TestRunStartedIsTheLedgers: a job hook's Job is told apart from an earlier run's by the
// ledger's start of the run, which every agent reads alike.
func TestRunStartedIsTheLedgers(t *testing.T) {
	at := time.Unix(1700000000, 0)
	r := &state.Rollout{Phases: []state.PhaseState{{Hooks: map[string]state.HookRun{"pre/migrate": {StartedAt: at}}}}}
	for _, tc := range []struct {
		act  rollout.Action
		want time.Time
	}{
		{rollout.Action{Key: "pre/migrate", Phase: 0}, at},
		{rollout.Action{Key: "check/smoke", Phase: 0}, time.Time{}},
		{rollout.Action{Key: "pre/migrate", Phase: 3}, time.Time{}},
		{rollout.Action{Key: "pre/migrate", Phase: -1}, time.Time{}},
	} {
		if got := runStarted(r, tc.act); !got.Equal(tc.want) {
			t.Errorf("%+v: %v, want %v", tc.act, got, tc.want)
		}
	}
}
