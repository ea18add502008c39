package commandhook

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// TestCommandEnvInjectionRefused: a declared BASH_ENV runs its command substitution in any
// bash script (shown first with bash itself, so the test cannot pass vacuously); the runner
// refuses it, and every other loader, shell or agent-set variable, before it starts
// anything: the script never runs, and the run is Errored naming the field and the fix.
func TestCommandEnvInjectionRefused(t *testing.T) {
	bash, err := exec.LookPath("bash")
	touch, err2 := exec.LookPath("touch")
	if err != nil || err2 != nil {
		t.Skip("no bash or touch on this machine")
	}
	tmp := t.TempDir()
	dir := t.TempDir()
	ran := filepath.Join(tmp, "the-script-ran")
	if err := os.WriteFile(filepath.Join(dir, "check.sh"), []byte("#!"+bash+"\n"+touch+" "+ran+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// the command substitution names touch by its path: PATH is the allowed directories only
	inject := func(marker string) string { return "$(" + touch + " " + marker + ")" }

	control := filepath.Join(tmp, "injected-by-bash")
	cmd := exec.Command(filepath.Join(dir, "check.sh"))
	cmd.Env = []string{"PATH=" + dir, "BASH_ENV=" + inject(control)}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("control run: %v %s", err, out)
	}
	if _, err := os.Stat(control); err != nil {
		t.Fatalf("bash did not run BASH_ENV's command substitution, so this test proves nothing: %v", err)
	}
	os.Remove(ran)

	r := hooks.New(hooks.Limits{Kinds: []any{Options{Dirs: []string{dir}}}})
	for name, want := range map[string]string{
		"BASH_ENV":          "not run: command.env.BASH_ENV: makes a shell run code",
		"ENV":               "not run: command.env.ENV: makes a shell run code",
		"BASH_FUNC_touch%%": "not run: command.env.BASH_FUNC_touch%%: makes a shell run code",
		"SHELLOPTS":         "not run: command.env.SHELLOPTS: makes a shell",
		"LD_PRELOAD":        "not run: command.env.LD_PRELOAD: makes the dynamic loader",
		"PYTHONPATH":        "not run: command.env.PYTHONPATH: makes an interpreter",
		"GIT_SSH_COMMAND":   "not run: command.env.GIT_SSH_COMMAND: makes a tool run a program",
		"https_proxy":       "not run: command.env.https_proxy: changes which servers",
		"PATH":              "not run: command.env.PATH: is set by the agent",
		"HOOK_TYPE":         "not run: command.env.HOOK_TYPE: is set by the agent",
		"lower_case":        "not run: command.env.lower_case: is not an upper-case variable name",
		"TAR_OPTIONS":       "not run: command.env.TAR_OPTIONS: is not a name a command hook may set",
		"VAULT_ADDR":        "not run: command.env.VAULT_ADDR: is not a name a command hook may set",
	} {
		t.Run(name, func(t *testing.T) {
			marker := filepath.Join(tmp, "injected-"+strings.NewReplacer("%", "", "_", "").Replace(name))
			c := commandCall("check.sh")
			c.Hook.Block.(*Block).Env[name] = inject(marker)
			res := r.Run(context.Background(), c)
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("%s's value ran as the agent: %s exists", name, marker)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Errorf("the script ran: %s exists", ran)
				os.Remove(ran)
			}
			if res.Outcome != hooks.Errored || !strings.HasPrefix(res.Message, want) || !strings.Contains(res.Message, "(fix: ") {
				t.Fatalf("got %s %q, want Errored %q…", res.Outcome, res.Message, want)
			}
		})
	}
	t.Run("a plain variable still runs", func(t *testing.T) {
		c := commandCall("check.sh")
		c.Hook.Block.(*Block).Env["DEPLOYMENT_ENV"] = inject(filepath.Join(tmp, "never"))
		if res := r.Run(context.Background(), c); res.Outcome != hooks.Succeeded {
			t.Fatalf("%s %q", res.Outcome, res.Message)
		}
		if _, err := os.Stat(ran); err != nil {
			t.Fatalf("the script did not run: %v", err)
		}
		if _, err := os.Stat(filepath.Join(tmp, "never")); err == nil {
			t.Fatal("a plain variable's value was run")
		}
	})
}
