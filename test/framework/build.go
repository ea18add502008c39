package framework

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildProject builds one of this project's commands (e.g. "./cmd/cmp-phase") into dir.
func BuildProject(dir, pkg string) (string, error) {
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
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

// BuildBinaries builds cmp-phase and the agent into a new temp dir (remove Dir after).
func BuildBinaries() (Binaries, error) {
	dir, err := os.MkdirTemp("", "cmp-phase-bin-")
	if err != nil {
		return Binaries{}, fmt.Errorf("bin dir: %w", err)
	}
	b := Binaries{Dir: dir}
	if b.CmpPhase, err = BuildProject(dir, "./cmd/cmp-phase"); err == nil {
		b.Agent, err = BuildProject(dir, "./cmd/agent")
	}
	if err != nil {
		os.RemoveAll(dir)
		return Binaries{}, err
	}
	return b, nil
}
