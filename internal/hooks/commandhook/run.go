package commandhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// commandKind runs `type: command` hooks.
type kind struct{ spec.HookKind }

// Kind is `type: command`, as internal/hooks/all registers it.
var Kind hooks.Kind = kind{specHalf}

// Reach is nothing shared: a command runs on the agent's own machine.
func (kind) Reach(spec.HookBlock) hooks.Reach { return hooks.Reach{} }

// Run runs the hook's argv (no shell) in a fresh temp directory, in its own process group.
// Exit 0 is success, another exit status Failed, anything else Errored.
func (kind) Run(ctx context.Context, r *hooks.Runner, c hooks.Call) hooks.Result {
	o := options(r)
	h, ok := c.Hook.Block.(*Block)
	if !ok {
		return hooks.NoBlock(c)
	}
	argv := h.Command
	if len(argv) == 0 {
		return hooks.Result{Outcome: hooks.Errored, Message: "empty command"}
	}
	if err := CheckCommandEnv(h.Env); err != nil { // the parser refused it too: a plan is not trusted
		return hooks.Result{Outcome: hooks.Errored, Message: "not run: " + err.Error()}
	}
	path, err := o.resolve(argv[0])
	if err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: err.Error()}
	}
	env, err := o.environ(c, h.Env)
	if err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: err.Error()}
	}
	dir, err := os.MkdirTemp("", "cmp-phase-hook-")
	if err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: "work dir: " + err.Error()}
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(env, "HOME="+dir, "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, stderr := &capped{max: o.MaxOutput}, &capped{max: o.MaxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = o.Grace // then SIGKILL, and stop waiting for pipes a descendant holds
	if err := cmd.Start(); err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: "start: " + err.Error()}
	}
	err = cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // descendants die with the hook
	return outcome(ctx, cmd, err, stdout, stderr)
}

func outcome(ctx context.Context, cmd *exec.Cmd, err error, stdout, stderr *capped) hooks.Result {
	out := strings.TrimSpace(stderr.String())
	if out == "" {
		out = strings.TrimSpace(stdout.String())
	}
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return hooks.Result{Outcome: hooks.Errored, ExitCode: code, Message: "timed out (SIGTERM, then SIGKILL after the grace period): " + out}
	case errors.As(err, &exitErr) && code > 0:
		return hooks.Result{Outcome: hooks.Failed, ExitCode: code, Message: fmt.Sprintf("exit %d: %s", code, out)}
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		return hooks.Result{Outcome: hooks.Errored, ExitCode: code, Message: err.Error()}
	case code != 0:
		return hooks.Result{Outcome: hooks.Errored, ExitCode: code, Message: fmt.Sprintf("ended by a signal: %s", out)}
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		out = "(output cut: a process the command left behind held it open) " + out
	}
	return hooks.Result{Outcome: hooks.Succeeded, Message: out}
}

// resolve finds the executable inside the allowed directories: a bare name or a relative
// path (seed 000's "./scripts/validate.sh") is looked up in each of them (never in PATH);
// an absolute path is taken as is; either way the real path, symlinks resolved, must lie
// inside one of them.
func (o Options) resolve(name string) (string, error) {
	if len(o.Dirs) == 0 {
		return "", fmt.Errorf("command hooks are disabled (fix: give the agent a hook command directory)")
	}
	candidates := []string{name}
	if !filepath.IsAbs(name) {
		candidates = nil
		for _, d := range o.Dirs {
			candidates = append(candidates, filepath.Join(d, name))
		}
	}
	for _, c := range candidates {
		real, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue
		}
		if !o.inside(real) {
			return "", fmt.Errorf("%q resolves to %s, outside the allowed directories %v", name, real, o.Dirs)
		}
		if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return real, nil
		}
	}
	return "", fmt.Errorf("%q is not an executable in the allowed directories %v", name, o.Dirs)
}

func (o Options) inside(path string) bool {
	for _, d := range o.Dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(real, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// environ is the scrubbed environment: PATH limited to the allowed directories, the
// variables the agent passes on, the declared ones (none of CheckCommandEnv's refused
// names: Run checked them), then the injected ones (which win).
func (o Options) environ(c hooks.Call, declared map[string]string) ([]string, error) {
	env := map[string]string{"PATH": strings.Join(o.Dirs, ":")}
	for _, k := range o.PassEnv {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for k, v := range declared {
		env[k] = v
	}
	for k, v := range map[string]string{contract.EnvAppSetName: c.Rollout, contract.EnvAppSetNamespace: c.Namespace,
		contract.EnvHookName: c.Hook.Name, contract.EnvHookType: c.Place, contract.EnvHookKind: c.Hook.Type,
		contract.EnvPhaseName: c.Phase, contract.EnvRolloutRevision: c.Revision, contract.EnvClusterName: c.Cluster,
		contract.EnvIdempotencyKey: c.IdempotencyKey} {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out, nil
}

// capped keeps the first max bytes written and discards the rest (the writer keeps
// draining, so a chatty command never blocks on a full pipe).
type capped struct {
	buf       bytes.Buffer
	max       int64
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := max(c.max-int64(c.buf.Len()), 0)
	c.buf.Write(p[:min(int64(len(p)), room)])
	if int64(len(p)) > room {
		c.truncated = true
	}
	return len(p), nil
}

func (c *capped) String() string {
	if c.truncated {
		return c.buf.String() + " …(output over the limit, cut)"
	}
	return c.buf.String()
}
