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
