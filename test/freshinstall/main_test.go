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

// bins are the programs the image holds, built from this tree; imageRoot is the image's
// root filesystem, which the containers run in.
var (
	bins      framework.Binaries
	imageRoot string
)

func TestMain(m *testing.M) {
	var err error
	if bins, err = framework.BuildBinaries(); err == nil {
		imageRoot, err = framework.BuildImageRoot(bins.Dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(bins.Dir)
	os.Exit(code)
}

// image is cmp-phase's image, as the manifests name it, for RunContainer.
func image() map[string]string {
	return map[string]string{framework.ImageRepository: imageRoot}
}
