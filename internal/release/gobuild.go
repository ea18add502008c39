package release

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// versionVar is the variable -X stamps the release version into (internal/version).
const versionVar = "github.com/cmp-phase/cmp-phase/internal/version.stamped"

// GoBuild says how a binary is built: static (CGO_ENABLED=0), -trimpath, stripped, from the
// module at Root, for the release Version ("" for a development build).
type GoBuild struct {
	Root    string
	Version string
	// VCS records the VCS revision in the binary (-buildvcs=auto); off, none is recorded.
	VCS bool
}

// Build builds pkg (e.g. "./cmd/agent") for p into out, with the given build tags.
func (b GoBuild) Build(ctx context.Context, pkg string, p Platform, out string, tags ...string) error {
	ldflags := "-s -w"
	if b.Version != "" {
		ldflags += " -X " + versionVar + "=" + b.Version
	}
	vcs := "-buildvcs=false"
	if b.VCS {
		vcs = "-buildvcs=auto"
	}
	args := []string{"build", "-trimpath", vcs, "-ldflags", ldflags, "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pkg)...)
	cmd.Dir = b.Root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Arch, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s for %s: %w (fix: the build error below)\n%s", pkg, p, err, out)
	}
	return nil
}

// Binaries are the paths of one platform's binaries, by name ("cmp-phase", "agent").
type Binaries map[string]string

// buildAll builds each of pkgs (name → package) for p into dir/<os>_<arch>/<name>.
func (b GoBuild) buildAll(ctx context.Context, dir string, p Platform, pkgs map[string]string, tags map[string][]string) (Binaries, error) {
	out := Binaries{}
	pdir := filepath.Join(dir, p.OS+"_"+p.Arch)
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		return nil, fmt.Errorf("binary dir: %w", err)
	}
	for name, pkg := range pkgs {
		path := filepath.Join(pdir, name)
		if err := b.Build(ctx, pkg, p, path, tags[name]...); err != nil {
			return nil, err
		}
		out[name] = path
	}
	return out, nil
}
