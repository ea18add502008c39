package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"
)

var update = flag.Bool("update", false, "rewrite the help goldens and docs/reference/cli")

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// builtBinary is cmp-phase built once per test run into a temp dir: the help tests run
// the real binary, as people and the kubectl plugin do.
func builtBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cmp-phase-help-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "cmp-phase")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v", buildErr)
	}
	return binPath
}

// commandPaths are every available command's path below the root (e.g. "completion bash").
func commandPaths(c *cobra.Command) []string {
	var out []string
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() && sub.Name() != "help" {
			continue
		}
		p := strings.TrimPrefix(sub.CommandPath(), "cmp-phase ")
		out = append(out, p)
		out = append(out, commandPaths(sub)...)
	}
	return out
}

// TestHelpGoldens: `--help` of every command exits 0 with the help in testdata/help (go
// test -run TestHelpGoldens -update rewrites them), has an example, and is what
// `help <cmd>` prints.
func TestHelpGoldens(t *testing.T) {
	bin := builtBinary(t)
	paths := append([]string{""}, commandPaths(newRoot(&app{ctx: context.Background(), out: io.Discard, errOut: io.Discard}))...)
	for _, p := range paths {
		args := append(strings.Fields(p), "--help")
		cmd := exec.Command(bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Errorf("cmp-phase %s: %v %s", strings.Join(args, " "), err, stderr.String())
			continue
		}
		if !strings.Contains(string(out), "Examples:") {
			t.Errorf("cmp-phase %s: no example", strings.Join(args, " "))
		}
		name := strings.ReplaceAll(strings.TrimSpace("cmp-phase "+p), " ", "_") + ".txt"
		golden := filepath.Join("testdata", "help", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, out, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil || !bytes.Equal(out, want) {
			t.Errorf("cmp-phase %s differs from %s (fix: go test ./cmd/cmp-phase -run TestHelpGoldens -update, and review the diff): %v\n%s", strings.Join(args, " "), golden, err, out)
		}
		if p == "" || strings.HasPrefix(p, "help") {
			continue
		}
		viaHelp, err := exec.Command(bin, append([]string{"help"}, strings.Fields(p)...)...).Output()
		if err != nil || !bytes.Equal(viaHelp, out) {
			t.Errorf("cmp-phase help %s: %v, not what --help prints", p, err)
		}
	}
}

// TestCompletionScriptsParse: completion prints a script for each shell; bash's parses.
func TestCompletionScriptsParse(t *testing.T) {
	bin := builtBinary(t)
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		out, err := exec.Command(bin, "completion", sh).Output()
		if err != nil || len(out) < 100 {
			t.Fatalf("completion %s: %v %d bytes", sh, err, len(out))
		}
		if sh != "bash" {
			continue
		}
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Skip("no bash")
		}
		check := exec.Command(bash, "-n")
		check.Stdin = bytes.NewReader(out)
		if msg, err := check.CombinedOutput(); err != nil {
			t.Fatalf("completion bash | bash -n: %v\n%s", err, msg)
		}
	}
}

// TestKubectlPluginName: installed as kubectl-cmp_phase the binary names itself
// `kubectl cmp-phase` in help, as kubectl runs it.
func TestKubectlPluginName(t *testing.T) {
	plugin := filepath.Join(t.TempDir(), "kubectl-cmp_phase")
	if err := os.Symlink(builtBinary(t), plugin); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(plugin, "status", "--help").Output()
	if err != nil || !strings.Contains(string(out), "kubectl cmp-phase status <rollout> [flags]") {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err = exec.Command(plugin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "cmp-phase ") {
		t.Fatalf("version: %v %s", err, out)
	}
}

// TestCommandReferenceIsGenerated: docs/reference/cli is what `cmp-phase docs` writes
// (go test -run TestCommandReferenceIsGenerated -update rewrites it).
func TestCommandReferenceIsGenerated(t *testing.T) {
	committed := filepath.Join("..", "..", docsDir)
	root := newRoot(&app{ctx: context.Background(), out: io.Discard, errOut: io.Discard})
	if *update {
		if err := os.RemoveAll(committed); err != nil {
			t.Fatal(err)
		}
		if err := writeDocs(root, committed); err != nil {
			t.Fatal(err)
		}
		return
	}
	dir := t.TempDir()
	if err := writeDocs(root, dir); err != nil {
		t.Fatal(err)
	}
	fresh, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	have, _ := filepath.Glob(filepath.Join(committed, "*.md"))
	if len(fresh) != len(have) {
		t.Errorf("%s has %d pages, the commands make %d (fix: go test ./cmd/cmp-phase -run TestCommandReferenceIsGenerated -update)", committed, len(have), len(fresh))
	}
	for _, f := range fresh {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(committed, filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the commands generate (fix: go test ./cmd/cmp-phase -run TestCommandReferenceIsGenerated -update): %v", filepath.Base(f), err)
		}
	}
}
