//go:build e2e

// Package faults is the fault-injection suite: a phased rollout on its own real stack
// while the agent's API calls fail (409, 429, 500, resets, stalls), the API server and etcd
// restart, the sidecar is killed and the repo-server restarted, and 100 renders hit the
// plugin socket at once. It prints what it injected and what was lost (nothing may be).
// CMP_PHASE_FAULTS=long runs more rollouts at a higher rate.
package faults

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/cmp-phase/cmp-phase/test/framework"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

var (
	env                   *framework.Env
	agentBin, cmpPhaseBin string
)

var fleet = []framework.Cluster{
	{Name: "dev-1", Labels: map[string]string{"env": "dev"}},
	{Name: "dev-2", Labels: map[string]string{"env": "dev"}},
	{Name: "staging-1", Labels: map[string]string{"env": "staging"}},
	{Name: "staging-2", Labels: map[string]string{"env": "staging"}},
	// prod's clusters run API servers of their own, with identities of their own: a cluster
	// that goes away, or refuses Argo CD, is one cluster, not the control plane.
	{Name: "prod-1", Labels: map[string]string{"env": "prod"}, OwnAPIServer: true},
	{Name: "prod-2", Labels: map[string]string{"env": "prod"}, OwnAPIServer: true},
}

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	bins, err := framework.BuildBinaries()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(bins.Dir)
	cmpPhaseBin, agentBin = bins.CmpPhase, bins.Agent
	env, err = framework.Start(context.Background(), framework.Options{Clusters: fleet,
		Plugins: []framework.Plugin{{Name: contract.PluginName, Start: framework.CmpPhaseSidecar(cmpPhaseBin)}}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "start the fault stack: %v\n", err)
		return 1
	}
	return env.Finish(m.Run())
}
