package commandhook

import (
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// Options are what the agent lets command hooks do. The agent hands them to its runner
// (hooks.Limits.Kinds); without them command hooks are refused.
type Options struct {
	// Dirs are the directories a command's executable must resolve into
	// (--hook-command-dir); none means command hooks are refused.
	Dirs []string
	// PassEnv names variables of the agent's own environment a command may see
	// (--hook-pass-env).
	PassEnv []string
	// MaxOutput is the stdout and stderr bytes kept, each (default 64 KiB).
	MaxOutput int64
	// Grace is the time from SIGTERM to SIGKILL on a timeout (default 5s).
	Grace time.Duration
}

// BindFlags registers --hook-command-dir and --hook-pass-env (both repeatable).
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.Func("hook-command-dir", "a directory command hooks may run executables from (repeatable; none: command hooks are refused)", func(v string) error {
		if !filepath.IsAbs(v) {
			return fmt.Errorf("%q is not an absolute path", v)
		}
		o.Dirs = append(o.Dirs, v)
		return nil
	})
	fs.Func("hook-pass-env", "a variable of the agent's environment command hooks may see (repeatable)", func(v string) error {
		o.PassEnv = append(o.PassEnv, v)
		return nil
	})
}

// options are the runner's command options, defaults filled.
func options(r *hooks.Runner) Options {
	o, _ := hooks.OptionsOf[Options](r)
	if o.MaxOutput <= 0 {
		o.MaxOutput = 64 << 10
	}
	if o.Grace <= 0 {
		o.Grace = 5 * time.Second
	}
	return o
}
