package hooks

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

func commandCall(argv ...string) Call {
	return Call{Rollout: "guestbook", Namespace: "argocd", Phase: "prod", Revision: "r2", IdempotencyKey: "k1", Place: "check",
		Hook: spec.Hook{Name: "check", Type: "command", Timeout: 5 * time.Second,
			Block: &spec.CommandHook{Command: argv, Env: map[string]string{"TARGET": "prod"}}}}
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
	r := New(Limits{CommandDirs: []string{dir}, Grace: 300 * time.Millisecond, MaxOutput: 4096})
	many := commandCall("ok.sh")
	env := map[string]string{}
	for i := range 101 {
		env[fmt.Sprintf("V%d", i)] = "x"
	}
	many.Hook.Block.(*spec.CommandHook).Env = env
	stubborn := commandCall("stubborn")
	stubborn.Hook.Timeout = 300 * time.Millisecond
	cases := []struct {
		name    string
		call    Call
		want    Outcome
		message string
	}{
		{"exit 0 is success, with the injected and declared env", commandCall("ok.sh"), Succeeded, "hello prod from guestbook/check in prod"},
		{"an absolute path inside the allowed directory runs", commandCall(filepath.Join(dir, "ok.sh")), Succeeded, "hello"},
		{"exit 1 is a gate's no", commandCall("fail.sh"), Failed, "exit 1: the database is not ready"},
		{"a command that ignores SIGTERM is killed after the grace period", stubborn, Errored, "timed out"},
		{"a path outside the allow-list is refused", commandCall(filepath.Join(outside, "evil.sh")), Errored, "outside the allowed directories"},
		{"a symlink out of the allow-list is refused", commandCall("link.sh"), Errored, "outside the allowed directories"},
		{"a relative path is looked up inside the allowed directories", commandCall("./ok.sh"), Succeeded, "hello"},
		{"a relative path cannot climb out of them", commandCall("../" + filepath.Base(outside) + "/evil.sh"), Errored, "outside the allowed directories"},
		{"PATH is never searched", commandCall("ls"), Errored, "not an executable in the allowed directories"},
		{"a file that is not executable is refused", commandCall("sneaky.txt"), Errored, "not an executable"},
		{"101 env vars are refused", many, Errored, "not run: command.env has 101 variables, over --max-env-vars (100)"},
		{"output past the cap is cut, and the command still completes", commandCall("chatty.sh"), Succeeded, "line 0 of a lot"},
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
		res := New(Limits{CommandDirs: []string{dir}, MaxMessage: 4096}).Run(context.Background(), commandCall("env.sh"))
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
		if res.Outcome != Succeeded || time.Since(start) > 3*time.Second {
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
		if res := New(Limits{}).Run(context.Background(), commandCall("ok.sh")); res.Outcome != Errored || !strings.Contains(res.Message, "disabled") {
			t.Fatalf("%s %q", res.Outcome, res.Message)
		}
	})
}

func TestSecretsNeverLeaveInAResult(t *testing.T) {
	const secret = "s3cr3t-t0ken-value"
	dir := scripts(t, map[string]string{"leak.sh": `echo "token is $TOKEN" >&2; exit 3`})
	c := commandCall("leak.sh")
	c.Hook.Block.(*spec.CommandHook).Env["TOKEN"] = secret
	c.Secrets = []string{secret}
	res := New(Limits{CommandDirs: []string{dir}}).Run(context.Background(), c)
	if res.Outcome != Failed || strings.Contains(res.Message, secret) || !strings.Contains(res.Message, "[redacted]") {
		t.Fatalf("%s %q", res.Outcome, res.Message)
	}
	h := httpCall("http://" + secret + ".invalid/?token=" + secret)
	h.Secrets = []string{secret}
	if res := local().Run(context.Background(), h); strings.Contains(res.Message, secret) {
		t.Fatalf("%q", res.Message)
	}
}
