//go:build e2e

// Package freshinstall installs cmp-phase as docs/install.md says — onto a fresh API server,
// namespace included, with the real kubectl — runs its sidecar and agent from the rendered
// manifests (framework.RunContainer: their command, args, env, mounts and tokens as a
// kubelet would give them, no flag written by the harness), and uninstalls it as the docs
// say, checking that nothing of cmp-phase is left. hack/test.sh runs it alone: the
// containers listen on the ports the manifests name.
package freshinstall

import (
	"fmt"
	"os"
	"testing"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// bins are the programs the image holds, built from this tree.
var bins framework.Binaries

func TestMain(m *testing.M) {
	var err error
	if bins, err = framework.BuildBinaries(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(bins.Dir)
	os.Exit(code)
}

// image is what cmp-phase's image holds: both programs at the paths the manifests run.
func image() map[string]map[string]string {
	return map[string]map[string]string{"ghcr.io/cmp-phase/cmp-phase": {
		"/usr/local/bin/cmp-phase": bins.CmpPhase,
		"/usr/local/bin/agent":     bins.Agent,
	}}
}
