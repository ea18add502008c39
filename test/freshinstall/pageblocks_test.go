//go:build e2e

package freshinstall

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// marked is a ```sh block of docs/getting-started.md and the marker before it
// (<!-- getting-started: NAME -->; "not run: why" for one the tests cannot run).
var marked = regexp.MustCompile("(?s)(?:<!-- getting-started: ([^>]*?) -->\\s*)?```sh\\n(.*?)```")

// pageBlocks are the getting-started page's shell blocks by marker; a block without a
// marker fails the test, so every command the page gives is run or said not to be.
func pageBlocks(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "docs", "getting-started.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	page = page[strings.Index(page, "## A first phased rollout"):]
	out := map[string]string{}
	for _, m := range marked.FindAllStringSubmatch(page, -1) {
		if m[1] == "" {
			t.Fatalf("docs/getting-started.md has a shell block without a getting-started marker:\n%s", m[2])
		}
		out[m[1]] = dedent(m[2])
	}
	return out
}

func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "    ")
	}
	return strings.Join(lines, "\n")
}

// runBlock runs a block of the page with bash, as written, in dir, with env added to a
// PATH that holds the stack's kubectl.
func runBlock(t *testing.T, e *framework.Env, dir, block string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", block)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+e.Kubeconfig, "PATH="+filepath.Dir(e.Tools.Kubectl)+":"+os.Getenv("PATH"))
	cmd.Env = append(append(cmd.Env, internet...), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the getting-started block\n%s\nfailed: %v\n%s", block, err, out)
	}
	return string(out)
}
