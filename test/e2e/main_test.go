//go:build e2e

// Package e2e runs cmp-phase against a real kube-apiserver and a real Argo CD started by
// test/framework on loopback.
package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cmp-phase/cmp-phase/test/framework"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// env is the stack shared by the tests of this package; each test uses its own names.
var env *framework.Env

// cmpPhaseBin and agentBin are built from this tree for the tests.
var cmpPhaseBin, agentBin string

// fleet is the six loopback clusters every e2e test deploys to (tier: production is what
// seed 000's advanced example selects).
var fleet = []framework.Cluster{
	{Name: "dev-1", Labels: map[string]string{"env": "dev", "region": "eu"}},
	{Name: "dev-2", Labels: map[string]string{"env": "dev", "region": "us"}},
	{Name: "staging-1", Labels: map[string]string{"env": "staging", "region": "eu"}},
	{Name: "staging-2", Labels: map[string]string{"env": "staging", "region": "us"}},
	{Name: "prod-1", Labels: map[string]string{"env": "prod", "region": "eu", "tier": "production"}},
	{Name: "prod-2", Labels: map[string]string{"env": "prod", "region": "us", "tier": "production"}},
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	smokeConfig, err := filepath.Abs("testdata/smoke-plugin")
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
	cmpPhaseBin, agentBin = bins.CmpPhase, bins.Agent
	env, err = framework.Start(context.Background(), framework.Options{
		Clusters:                 fleet,
		ApplicationSetController: true,
		Plugins: []framework.Plugin{
			{Name: "smoke-v1.0", Start: framework.StockCMPServer(smokeConfig)},
			{Name: contract.PluginName, Start: framework.CmpPhaseSidecar(cmpPhaseBin)},
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "start e2e stack: %v\n", err)
		return 1
	}
	if err := env.PublishInventory(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		env.Stop()
		return 1
	}
	return env.Finish(m.Run())
}
