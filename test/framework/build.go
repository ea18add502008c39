package framework

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// BuildBinaries builds cmp-phase and the agent into a new temp dir (remove Dir after); the
// agent with FaultsTag, so tests can make it crash where a crash matters.
func BuildBinaries() (Binaries, error) {
	dir, err := os.MkdirTemp("", "cmp-phase-bin-")
	if err != nil {
		return Binaries{}, fmt.Errorf("bin dir: %w", err)
	}
	b := Binaries{Dir: dir}
	if b.CmpPhase, err = BuildProject(dir, "./cmd/cmp-phase"); err == nil {
		b.Agent, err = BuildProject(dir, "./cmd/agent", FaultsTag)
	}
	if err != nil {
		os.RemoveAll(dir)
		return Binaries{}, err
	}
	return b, nil
}
