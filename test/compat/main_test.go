//go:build e2e

// Package compat is the smoke test on the previous Argo CD minor cmp-phase supports
// (hack/versions.sh's ARGOCD_PREVIOUS_VERSION): the whole harness stack — kube-apiserver and
// etcd, redis, the repo-server with the cmp-phase sidecar on the real CMP socket, the
// application controller and argocd-server — all at that version, a parent rendered through
// the plugin and one phased rollout driven by the real agent. test/e2e runs everything on
// ARGOCD_VERSION, the newest supported.
package compat

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

var (
	env      *framework.Env
	agentBin string
)

// fleet is one cluster per phase of framework.PhasedSpec, and two for prod's 50% batches.
var fleet = []framework.Cluster{
	{Name: "dev-1", Labels: map[string]string{"env": "dev"}},
	{Name: "staging-1", Labels: map[string]string{"env": "staging"}},
	{Name: "prod-1", Labels: map[string]string{"env": "prod"}},
	{Name: "prod-2", Labels: map[string]string{"env": "prod"}},
}

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	versions, err := framework.PinnedVersions()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	bins, err := framework.BuildBinaries()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(bins.Dir)
	agentBin = bins.Agent
	env, err = framework.Start(context.Background(), framework.Options{
		Clusters:      fleet,
		ArgoCDVersion: versions["ARGOCD_PREVIOUS_VERSION"],
		Plugins:       []framework.Plugin{{Name: contract.PluginName, Start: framework.CmpPhaseSidecar(bins.CmpPhase)}},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "start the stack on Argo CD %s: %v\n", versions["ARGOCD_PREVIOUS_VERSION"], err)
		return 1
	}
	return env.Finish(m.Run())
}
