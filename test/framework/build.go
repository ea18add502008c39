package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/cmp-phase/cmp-phase/internal/release"
)

// FaultsTag is the build tag that compiles the agent's test-only crash switch
// (CMP_PHASE_AGENT_FAULT, cmd/agent/faults_on.go); production builds go without it.
const FaultsTag = "cmpphase_faults"

// BuildProject builds one of this project's commands (e.g. "./cmd/cmp-phase") into dir,
// with the given build tags.
func BuildProject(dir, pkg string, tags ...string) (string, error) {
	out := filepath.Join(dir, filepath.Base(pkg))
	args := []string{"build", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = RepoRoot()
	cmd.Env = os.Environ()
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", pkg, err, b)
	}
	return out, nil
}

// Binaries are the project's two programs, built for a test run.
type Binaries struct {
	Dir, CmpPhase, Agent string
}

// BuildBinaries gives a test run cmp-phase and the agent as the release image ships them:
// it builds the image for this machine (linux/GOARCH) the way hack/release.sh does
// (internal/release: static binaries in an OCI image's layers) and takes both binaries out
// of its layers into a new temp dir (remove Dir after), so a broken image fails the suites.
// The one difference from a release: the agent is built with FaultsTag, so tests can make
// it crash where a crash matters, and no version is stamped. The image is cached in
// .cache/release-image/<hash of the sources>, which the suites of a run share.
func BuildBinaries() (Binaries, error) {
	dir, err := os.MkdirTemp("", "cmp-phase-bin-")
	if err != nil {
		return Binaries{}, fmt.Errorf("bin dir: %w", err)
	}
	b := Binaries{Dir: dir, CmpPhase: filepath.Join(dir, "cmp-phase"), Agent: filepath.Join(dir, "agent")}
	err = withHostImage(context.Background(), func(idx v1.ImageIndex) error {
		img, err := release.PlatformImage(idx, hostPlatform())
		if err != nil {
			return err
		}
		return release.Extract(img, map[string]string{release.BinDir + "/cmp-phase": b.CmpPhase, release.BinDir + "/agent": b.Agent})
	})
	if err != nil {
		os.RemoveAll(dir)
		return Binaries{}, fmt.Errorf("binaries from the image: %w", err)
	}
	return b, nil
}

func hostPlatform() release.Platform { return release.Platform{OS: "linux", Arch: runtime.GOARCH} }

// withHostImage builds (or finds in the cache) the image for this machine's platform and
// calls use with it, holding the cache's lock (a suite starting meanwhile waits, and no
// prune removes the image under use).
func withHostImage(ctx context.Context, use func(v1.ImageIndex) error) error {
	if runtime.GOOS != "linux" {
		return fmt.Errorf("the suites run the linux image's binaries; this is %s (fix: run them on linux)", runtime.GOOS)
	}
	root := RepoRoot()
	cache := filepath.Join(root, ".cache", "release-image")
	key, err := sourceKey(root, FaultsTag)
	if err != nil {
		return err
	}
	unlock, err := lockDir(cache)
	if err != nil {
		return err
	}
	defer unlock()
	dir := filepath.Join(cache, key)
	if _, err := os.Stat(filepath.Join(dir, "index.json")); err != nil {
		if err := buildHostImage(ctx, root, cache, dir); err != nil {
			return err
		}
		pruneCache(cache, key)
	}
	idx, err := release.ReadLayout(dir)
	if err != nil {
		return err
	}
	return use(idx)
}

// buildHostImage builds the image into a temp dir of cache and renames it to dir.
func buildHostImage(ctx context.Context, root, cache, dir string) error {
	tmp, err := os.MkdirTemp(cache, "build-")
	if err != nil {
		return fmt.Errorf("image cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	epoch := time.Unix(0, 0).UTC()
	b := release.ImageBuild{
		Go: release.GoBuild{Root: root},
		Spec: release.ImageSpec{Epoch: epoch, CABundle: release.DefaultCABundle, PluginYAML: release.PluginYAML(root),
			Labels: release.Labels("", "", epoch)},
		Platforms: []release.Platform{hostPlatform()},
		AgentTags: []string{FaultsTag},
	}
	idx, _, err := b.Build(ctx, filepath.Join(tmp, "bin"))
	if err != nil {
		return err
	}
	if err := release.WriteLayout(filepath.Join(tmp, "oci"), "e2e", idx); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(tmp, "oci"), dir); err != nil {
		return fmt.Errorf("image cache: %w", err)
	}
	return nil
}
