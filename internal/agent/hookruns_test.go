package agent

import (
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestClusterVarsComeFromTheClusterTheEngineNames: a per-cluster run gets its cluster's
// fields from the inventory — the cluster the engine named (a pre-hook's child does not
// exist yet), else the one the live child's label names; a per-phase run only the phase's.
func TestClusterVarsComeFromTheClusterTheEngineNames(t *testing.T) {
	a := &Agent{inv: &inventory.Inventory{Clusters: []inventory.Cluster{
		{Name: "prod-us-west", Server: "https://10.0.0.1", Labels: map[string]string{"tier": "production"}},
		{Name: "dev-1", Server: "https://10.0.0.2"},
	}}}
	live := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "web-dev-1", Labels: map[string]string{contract.LabelCluster: "dev-1"}}}
	p := &pass{plan: &plan.Plan{Rollout: "web"}, children: map[string]*v1alpha1.Application{live.Name: live}}
	cases := map[string]struct {
		act                 rollout.Action
		name, server, label string
	}{
		"a pre-hook before its child exists": {rollout.Action{Cluster: "web-prod-us-west", ClusterName: "prod-us-west"}, "prod-us-west", "https://10.0.0.1", "production"},
		"a live child, no name given":        {rollout.Action{Cluster: "web-dev-1"}, "dev-1", "https://10.0.0.2", ""},
		"a per-phase run":                    {rollout.Action{}, "", "", ""},
		"a cluster gone from the inventory":  {rollout.Action{Cluster: "web-gone", ClusterName: "gone"}, "", "", ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			vars := a.clusterVars(p, "prod", c.act)
			if vars["name"] != c.name || vars["server"] != c.server || vars["metadata.labels.tier"] != c.label || vars[".phase.name"] != "prod" {
				t.Fatalf("%v", vars)
			}
		})
	}
}

// TestHookTypeIsThePlaceTheEngineNamed: HOOK_TYPE (the call's Place) is pre, post or check
// as the ledger key of the engine's action says, never one constant.
func TestHookTypeIsThePlaceTheEngineNamed(t *testing.T) {
	a := &Agent{inv: &inventory.Inventory{}}
	p := &pass{plan: &plan.Plan{Rollout: "web", Phases: []spec.Phase{{Name: "dev"}}}}
	for _, place := range []string{"pre", "post", "check"} {
		act := rollout.Action{Kind: rollout.ActRunHook, Key: rollout.HookKey(place, "notify", "web-dev-1"), Cluster: "web-dev-1"}
		if got := a.hookCall(p, "r2", act, "id", time.Time{}, spec.Hook{Name: "notify"}, nil, nil).Place; got != place {
			t.Fatalf("a %s hook runs with HOOK_TYPE %q", place, got)
		}
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
