package commandhook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// scripts writes executable scripts into a fresh allowed directory.
func scripts(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func commandCall(argv ...string) hooks.Call {
	return hooks.Call{Rollout: "guestbook", Namespace: "argocd", Phase: "prod", Revision: "r2", IdempotencyKey: "k1", Place: "check",
		Hook: spec.Hook{Name: "check", Type: "command", Timeout: 5 * time.Second,
			Block: &Block{Command: argv, Env: map[string]string{"TARGET": "prod"}}}}
}

func TestCommandHooks(t *testing.T) {
	t.Setenv("AGENT_SECRET", "do-not-pass")
	dir := scripts(t, map[string]string{
		"ok.sh":      `echo "hello $TARGET from $APPSET_NAME/$HOOK_NAME in $PHASE_NAME"`,
		"fail.sh":    `echo "the database is not ready" >&2; exit 1`,
		"stubborn":   `trap '' TERM; echo stubborn; /bin/sleep 30`,
		"orphan.sh":  `/bin/sleep 30 & echo $!`,
		"chatty.sh":  `i=0; while [ $i -lt 20000 ]; do echo "line $i of a lot of output"; i=$((i+1)); done`,
		"env.sh":     `/usr/bin/env`,
		"where.sh":   `pwd`,
		"sneaky.txt": `echo not executable`,
	})
	outside := scripts(t, map[string]string{"evil.sh": "echo pwned"})
	if err := os.Symlink(filepath.Join(outside, "evil.sh"), filepath.Join(dir, "link.sh")); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(dir, "sneaky.txt"), 0o644)
	r := hooks.New(hooks.Limits{Kinds: []any{Options{Dirs: []string{dir}, Grace: 300 * time.Millisecond, MaxOutput: 4096}}})
	many := commandCall("ok.sh")
	env := map[string]string{}
	for i := range 101 {
		env[fmt.Sprintf("V%d", i)] = "x"
	}
	many.Hook.Block.(*Block).Env = env
	stubborn := commandCall("stubborn")
	stubborn.Hook.Timeout = 300 * time.Millisecond
	cases := []struct {
		name    string
		call    hooks.Call
		want    hooks.Outcome
		message string
	}{
		{"exit 0 is success, with the injected and declared env", commandCall("ok.sh"), hooks.Succeeded, "hello prod from guestbook/check in prod"},
		{"an absolute path inside the allowed directory runs", commandCall(filepath.Join(dir, "ok.sh")), hooks.Succeeded, "hello"},
		{"exit 1 is a gate's no", commandCall("fail.sh"), hooks.Failed, "exit 1: the database is not ready"},
		{"a command that ignores SIGTERM is killed after the grace period", stubborn, hooks.Errored, "timed out"},
		{"a path outside the allow-list is refused", commandCall(filepath.Join(outside, "evil.sh")), hooks.Errored, "outside the allowed directories"},
		{"a symlink out of the allow-list is refused", commandCall("link.sh"), hooks.Errored, "outside the allowed directories"},
		{"a relative path is looked up inside the allowed directories", commandCall("./ok.sh"), hooks.Succeeded, "hello"},
		{"a relative path cannot climb out of them", commandCall("../" + filepath.Base(outside) + "/evil.sh"), hooks.Errored, "outside the allowed directories"},
		{"PATH is never searched", commandCall("ls"), hooks.Errored, "not an executable in the allowed directories"},
		{"a file that is not executable is refused", commandCall("sneaky.txt"), hooks.Errored, "not an executable"},
		{"101 env vars are refused", many, hooks.Errored, "not run: command.env has 101 variables, over --max-env-vars (100)"},
		{"output past the cap is cut, and the command still completes", commandCall("chatty.sh"), hooks.Succeeded, "line 0 of a lot"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			res := r.Run(context.Background(), c.call)
			if res.Outcome != c.want || !strings.Contains(res.Message, c.message) {
				t.Fatalf("got %s %q, want %s containing %q", res.Outcome, res.Message, c.want, c.message)
			}
			if time.Since(start) > 4*time.Second {
				t.Fatalf("took %s", time.Since(start))
			}
		})
	}
	t.Run("the environment is scrubbed", func(t *testing.T) {
		res := hooks.New(hooks.Limits{MaxMessage: 4096, Kinds: []any{Options{Dirs: []string{dir}}}}).Run(context.Background(), commandCall("env.sh"))
		for _, want := range []string{"TARGET=prod", "APPSET_NAME=guestbook", "APPSET_NAMESPACE=argocd", "HOOK_NAME=check", "HOOK_TYPE=check", "HOOK_KIND=command", "IDEMPOTENCY_KEY=k1", "PATH=" + dir} {
			if !strings.Contains(res.Message, want) {
				t.Errorf("no %s in %q", want, res.Message)
			}
		}
		if strings.Contains(res.Message, "AGENT_SECRET") {
			t.Errorf("the agent's own environment leaked: %q", res.Message)
		}
	})
	t.Run("a fresh work dir, removed afterwards", func(t *testing.T) {
		res := r.Run(context.Background(), commandCall("where.sh"))
		if !strings.Contains(res.Message, "cmp-phase-hook-") {
			t.Fatalf("ran in %q", res.Message)
		}
		if _, err := os.Stat(strings.TrimSpace(res.Message)); !os.IsNotExist(err) {
			t.Fatalf("the work dir is still there: %v", err)
		}
	})
	t.Run("a grandchild holding the pipe neither blocks nor survives", func(t *testing.T) {
		start := time.Now()
		res := r.Run(context.Background(), commandCall("orphan.sh"))
		if res.Outcome != hooks.Succeeded || time.Since(start) > 3*time.Second {
			t.Fatalf("%s %q after %s", res.Outcome, res.Message, time.Since(start))
		}
		fields := strings.Fields(res.Message)
		pid, err := strconv.Atoi(fields[len(fields)-1])
		if err != nil {
			t.Fatalf("no pid in %q", res.Message)
		}
		deadline := time.Now().Add(2 * time.Second)
		for syscall.Kill(pid, 0) == nil { // reaped by init once killed
			if time.Now().After(deadline) {
				t.Fatalf("grandchild %d still alive", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	t.Run("without allowed directories commands are off", func(t *testing.T) {
		if res := hooks.New(hooks.Limits{}).Run(context.Background(), commandCall("ok.sh")); res.Outcome != hooks.Errored || !strings.Contains(res.Message, "disabled") {
			t.Fatalf("%s %q", res.Outcome, res.Message)
		}
	})
}

func TestSecretsNeverLeaveInAResult(t *testing.T) {
	const secret = "s3cr3t-t0ken-value"
	dir := scripts(t, map[string]string{"leak.sh": `echo "token is $TOKEN" >&2; exit 3`})
	c := commandCall("leak.sh")
	c.Hook.Block.(*Block).Env["TOKEN"] = secret
	c.Secrets = []string{secret}
	res := hooks.New(hooks.Limits{Kinds: []any{Options{Dirs: []string{dir}}}}).Run(context.Background(), c)
	if res.Outcome != hooks.Failed || strings.Contains(res.Message, secret) || !strings.Contains(res.Message, "[redacted]") {
		t.Fatalf("%s %q", res.Outcome, res.Message)
	}
}

// TestSeedSmokeTestsRunPerCluster: seed 000's smoke-tests post-hook names a cluster field,
// so it runs once per cluster, filled with that cluster's.
func TestSeedSmokeTestsRunPerCluster(t *testing.T) {
	smoke := spec.Hook{Name: "smoke-tests", Type: "command", Block: &Block{Command: []string{"pytest", "tests/smoke/"}, Env: map[string]string{"TARGET_URL": "https://{{name}}.example.com"}}}
	if !smoke.PerCluster() {
		t.Fatal("seed 000's smoke-tests names a cluster: it runs per cluster")
	}
	vars := hooks.PhaseVars("guestbook", "argocd", "prod")
	vars["name"] = "prod-us-west"
	lookup := func(string, string) (string, error) { return "", nil }
	if got, _, err := hooks.Template(smoke, vars, lookup); err != nil || got.Block.(*Block).Env["TARGET_URL"] != "https://prod-us-west.example.com" {
		t.Fatalf("seed 000's smoke-tests per cluster: %v %v", got.Block, err)
	}
}
