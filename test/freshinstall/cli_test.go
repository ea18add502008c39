//go:build e2e

package freshinstall

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// releaseFiles cuts a release of this tree for this machine, as a maintainer does with
// hack/release.sh (CMP_PHASE_RELEASE_PLATFORMS=host: linux/ARCH only), and gives its files
// by the URLs a GitHub release serves them at.
func releaseFiles(t *testing.T) map[string]string {
	t.Helper()
	version, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	v := strings.TrimSpace(string(version))
	dir := filepath.Join(t.TempDir(), "dist")
	cmd := exec.Command(filepath.Join(framework.RepoRoot(), "hack", "release.sh"), "--allow-dirty", v, dir)
	cmd.Env = append(os.Environ(), "CMP_PHASE_RELEASE_PLATFORMS=host")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/release.sh: %v\n%s", err, out)
	}
	files, err := framework.ReleaseFiles("cmp-phase/cmp-phase", v, dir)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// gettingStartedCLI runs the getting-started page's ways to get the CLI that the tests can
// run, as written: from a release (through the fake GitHub), from a checkout; then its
// validate block with the CLI the release gave.
func gettingStartedCLI(t *testing.T, e *framework.Env, blocks map[string]string) {
	t.Helper()
	home := t.TempDir()
	user := []string{"HOME=" + home, "PATH=" + filepath.Join(home, ".local", "bin") + ":" + filepath.Dir(e.Tools.Kubectl) + ":" + os.Getenv("PATH")}
	if out := runBlock(t, e, t.TempDir(), blocks["cli"], user...); !strings.Contains(out, "cmp-phase") {
		t.Fatalf("the release's CLI says no version:\n%s", out)
	}
	gobin := t.TempDir()
	runBlock(t, e, framework.RepoRoot(), blocks["source"], "GOBIN="+gobin)
	if _, err := os.Stat(filepath.Join(gobin, "cmp-phase")); err != nil {
		t.Fatalf("go install ./cmd/cmp-phase: %v", err)
	}
	if out := runBlock(t, e, framework.RepoRoot(), blocks["validate"], user...); !strings.Contains(out, "valid (phaseDeployment, 3 phases)") {
		t.Fatalf("cmp-phase validate from the release's CLI:\n%s", out)
	}
}
