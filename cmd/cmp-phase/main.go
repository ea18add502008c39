// Command cmp-phase is the Argo CD Config Management Plugin of cmp-phase: it renders an
// app-of-apps parent's child Applications phase by phase (serve, generate), and it is the
// CLI people steer rollouts with (list, status, plan, preview, the steering verbs). The
// commands are cobra commands with kubectl's flags; installed as kubectl-cmp_phase it is
// the kubectl plugin `kubectl cmp-phase`. `cmp-phase help` lists them, and
// docs/reference/cli holds the reference generated from them.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/cmp-phase/cmp-phase/internal/hooks/all" // every hook kind a spec may use
)

// The exit codes of every command.
const (
	exitOK       = 0 // done; status --wait: the rollout completed (or none runs)
	exitFailed   = 1 // it failed (an API error, an invalid spec, a refused edit); status --wait: the rollout ended without completing
	exitUsage    = 2 // bad usage: an unknown command or flag, a bad flag value, missing arguments
	exitTimedOut = 3 // status --wait: --timeout passed first

	exitInterrupted = 130 // status --wait: Ctrl-C (SIGINT) or SIGTERM came first (128 + SIGINT, as shells report it)
)

// exitCodesHelp is the exit code section of the help.
const exitCodesHelp = `Exit codes: 0 success; 1 failure (API error, invalid spec, refused edit); 2 bad usage
(unknown command or flag, bad value, missing argument); status --wait: 0 Completed,
1 Stopped/RolledBack/Abandoned/Failed, 3 --timeout passed, 130 interrupted (Ctrl-C).`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args and returns the exit code: a command's own failures are
// exitErrors with their code; whatever else cobra refuses (flags, arguments, commands) is
// bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(&app{ctx: ctx, args: args, out: stdout, errOut: stderr})
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", root.Name(), ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", root.Name(), err, cmd.CommandPath())
	return exitUsage
}

// exitError is a command's failure with its exit code (err nil: already reported).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// failed is a command's failure: exit 1.
func failed(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitFailed, err: err}
}

// exitWith ends a command with code, its message already written (or none).
func exitWith(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// usageError is bad usage found by a command itself (exit 2, with the usage hint).
func usageError(format string, args ...any) error { return fmt.Errorf(format, args...) }
