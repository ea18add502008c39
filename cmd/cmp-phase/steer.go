package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/steer"
)

// verb is one steering command: its positional arguments after the rollout, and the edit
// it makes with them.
type verb struct {
	args  string // usage
	nargs int    // how many (-1: one or more)
	run   func(c call) error
}

// call is one steering command as given.
type call struct {
	ctx   context.Context
	r     steer.Rollout
	args  []string
	flags steerFlags
}

var verbs = map[string]verb{
	"pause":                  {"", 0, func(c call) error { return c.r.Pause(c.ctx, c.flags.until) }},
	"resume":                 {"", 0, func(c call) error { return c.r.Resume(c.ctx) }},
	"abort":                  {"", 0, func(c call) error { return c.r.Abort(c.ctx) }},
	"rollback":               {"", 0, func(c call) error { return c.r.Rollback(c.ctx) }},
	"approve":                {"<phase>", 1, func(c call) error { return c.r.Approve(c.ctx, c.args[0]) }},
	"reject":                 {"<phase>", 1, func(c call) error { return c.r.Reject(c.ctx, c.args[0]) }},
	"promote":                {"<phase>", 1, func(c call) error { return c.r.Promote(c.ctx, c.args[0]) }},
	"jump":                   {"<phase>", 1, func(c call) error { return c.r.Jump(c.ctx, c.args[0], c.flags.force) }},
	"skip":                   {"<child>...", -1, func(c call) error { return c.r.Skip(c.ctx, c.args...) }},
	"unskip":                 {"<child>...", -1, func(c call) error { return c.r.Unskip(c.ctx, c.args...) }},
	"confirm-removal":        {"<child>...|all", -1, func(c call) error { return c.r.ConfirmRemoval(c.ctx, c.args...) }},
	"confirm-remove-rollout": {"<revision>", 1, func(c call) error { return c.r.ConfirmRemoveRollout(c.ctx, c.args[0]) }},
	"override-window":        {"<window>", 1, func(c call) error { return c.r.OverrideWindow(c.ctx, c.args[0]) }},
}

// takes reports whether pos (the rollout, then the verb's arguments) fits the verb.
func (v verb) takes(pos []string) bool {
	if v.nargs < 0 {
		return len(pos) >= 2
	}
	return len(pos) == 1+v.nargs
}

// runVerb parses a steering command and makes its edit (internal/control validates it
// exactly as the agent will, and writes it once).
func runVerb(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	v := verbs[name]
	var k kubeFlags
	var s steerFlags
	fs := steerFlagSet(name, fmt.Sprintf("<rollout> %s --reason <why> [flags]", v.args), stderr, &k, &s)
	if err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	pos := fs.Args()
	if !v.takes(pos) || strings.TrimSpace(s.reason) == "" {
		fs.Usage()
		return 2
	}
	if answers[name] && s.by != "" {
		fmt.Fprintln(stderr, "cmp-phase:", errByAnswers)
		return 2
	}
	kc, ns, user, err := k.connect()
	if err == nil {
		var r steer.Rollout
		if r, err = steer.Open(ctx, kc.CoreV1(), ns, pos[0], s.who(user), s.reason); err == nil && answers[name] {
			r, err = identify(ctx, kc, r) // identity.go: approvals record who the API server authenticates
		}
		if err == nil {
			err = v.run(call{ctx: ctx, r: r, args: pos[1:], flags: s})
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "cmp-phase:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s recorded; the agent acts on it and reports in `cmp-phase status %s`\n", pos[0], name, pos[0])
	return 0
}

// steerFlagSet is the flag set of a steering command (name): the kubectl flags and the
// steering flags, its usage line saying usage after the command.
func steerFlagSet(name, usage string, stderr io.Writer, k *kubeFlags, s *steerFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("cmp-phase "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	k.BindFlags(fs)
	s.BindFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cmp-phase %s %s\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}
