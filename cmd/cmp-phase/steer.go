package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/cmp-phase/cmp-phase/internal/steer"
)

// verb is one steering command: its positional arguments after the rollout, and the edit
// it makes with them.
type verb struct {
	name    string
	args    string // usage of the arguments after the rollout
	nargs   int    // how many (-1: one or more)
	short   string
	example string
	run     func(c call) error
}

// call is one steering command as given.
type call struct {
	ctx   context.Context
	r     steer.Rollout
	args  []string
	flags steerFlags
}

var verbs = []verb{
	{"pause", "", 0, "Hold everything — phases, soaks' ends, new rollouts, removals — until resumed (or --until passes)",
		`cmp-phase pause guestbook --reason "error rate up"
  cmp-phase pause guestbook --reason "weekend" --until 2026-12-01T08:00:00Z`,
		func(c call) error { return c.r.Pause(c.ctx, c.flags.until) }},
	{"resume", "", 0, "End a pause", `cmp-phase resume guestbook --reason "error rate back to normal"`,
		func(c call) error { return c.r.Resume(c.ctx) }},
	{"abort", "", 0, "Stop the rollout where it is", `cmp-phase abort guestbook --reason "wrong image"`,
		func(c call) error { return c.r.Abort(c.ctx) }},
	{"rollback", "", 0, "Return the admitted clusters to the revision they ran before", `cmp-phase rollback guestbook --reason "back to v1"`,
		func(c call) error { return c.r.Rollback(c.ctx) }},
	{"approve", "<phase>", 1, "Approve a phase's gate (an approval, or maxUpdate: 0); records the user the API server authenticates",
		`cmp-phase approve guestbook prod --reason "CHG-42 approved"
  cmp-phase approve guestbook prod --reason "checks green" --as alice --as-group sre`,
		func(c call) error { return c.r.Approve(c.ctx, c.args[0]) }},
	{"reject", "<phase>", 1, "Reject a phase's approval gate; records the user the API server authenticates", `cmp-phase reject guestbook prod --reason "not in this window"`,
		func(c call) error { return c.r.Reject(c.ctx, c.args[0]) }},
	{"promote", "<phase>", 1, "End a phase's soak now", `cmp-phase promote guestbook staging --reason "seen enough"`,
		func(c call) error { return c.r.Promote(c.ctx, c.args[0]) }},
	{"jump", "<phase>", 1, "Jump ahead to a phase (--force passes unfinished gates)", `cmp-phase jump guestbook prod --reason "hotfix" --force`,
		func(c call) error { return c.r.Jump(c.ctx, c.args[0], c.flags.force) }},
	{"skip", "<child>...", -1, "Quarantine children: the rollout goes on without them", `cmp-phase skip guestbook prod-2-guestbook --reason "prod-2 is being repaired"`,
		func(c call) error { return c.r.Skip(c.ctx, c.args...) }},
	{"unskip", "<child>...", -1, "Take children out of quarantine", `cmp-phase unskip guestbook prod-2-guestbook --reason "repaired"`,
		func(c call) error { return c.r.Unskip(c.ctx, c.args...) }},
	{"confirm-removal", "<child>...|all", -1, "Confirm removals a spec with confirmRemoval waits for", `cmp-phase confirm-removal guestbook all --reason "cluster decommissioned"`,
		func(c call) error { return c.r.ConfirmRemoval(c.ctx, c.args...) }},
	{"confirm-remove-rollout", "<revision>", 1, "Confirm that a rollout whose spec is gone from git removes every child", `cmp-phase confirm-remove-rollout guestbook 3f2a9c1e0b7d --reason "app retired"`,
		func(c call) error { return c.r.ConfirmRemoveRollout(c.ctx, c.args[0]) }},
	{"override-window", "<window>", 1, "Let the held phase's next admission through a change window, once", `cmp-phase override-window guestbook freeze --reason "hotfix 42"`,
		func(c call) error { return c.r.OverrideWindow(c.ctx, c.args[0]) }},
}

// steerFlags say who steers a rollout and why, and the modifiers of pause and jump.
type steerFlags struct {
	reason, by, until string
	force             bool
}

// who is --by, else the connection's user.
func (s *steerFlags) who(user string) string {
	if s.by != "" {
		return s.by
	}
	return user
}

// steerCommands are the steering verbs: each a validated edit of the rollout's ConfigMap
// (internal/control validates it exactly as the agent will, and writes it once).
func steerCommands(a *app) []*cobra.Command {
	var out []*cobra.Command
	for _, v := range verbs {
		out = append(out, a.newVerb(v))
	}
	return out
}

func (a *app) newVerb(v verb) *cobra.Command {
	s := &steerFlags{}
	use := strings.TrimSpace("%s <rollout> " + v.args)
	c := &cobra.Command{
		Use:     fmt.Sprintf(use, v.name) + " --reason <why>",
		GroupID: "steer",
		Short:   v.short,
		Long: v.short + `.

The edit is validated as the agent will validate it and written once into the rollout's
state ConfigMap; the agent acts on it and reports in ` + "`cmp-phase status <rollout>`" + `.
--reason is recorded in the rollout's history with who steered (--by, else the
kubeconfig context's user).

` + exitCodesHelp,
		Example:           "  " + v.example,
		Args:              verbArgs(v),
		ValidArgsFunction: a.completeRollout,
		RunE:              func(c *cobra.Command, args []string) error { return a.runVerb(v, s, args) },
	}
	f := c.Flags()
	f.StringVar(&s.reason, "reason", "", "why (required; recorded in the rollout's history)")
	f.StringVar(&s.by, "by", "", "who steers (recorded in the history; default: the kubeconfig context's user, else $USER)")
	if v.name == "pause" {
		f.StringVar(&s.until, "until", "", "RFC 3339 time the pause ends by itself, e.g. 2026-12-01T08:00:00Z")
	}
	if v.name == "jump" {
		f.BoolVar(&s.force, "force", false, "pass unfinished gates")
	}
	return a.withKube(c)
}

// verbArgs checks the positional arguments: the rollout, then the verb's.
func verbArgs(v verb) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		ok := len(args) == 1+v.nargs
		if v.nargs < 0 {
			ok = len(args) >= 2
		}
		if !ok {
			return fmt.Errorf("%s takes the rollout%s, got %q (fix: %s)", v.name, argsText(v), args, c.UseLine())
		}
		return nil
	}
}

func argsText(v verb) string {
	if v.args == "" {
		return " and nothing else"
	}
	return " and " + v.args
}

func (a *app) runVerb(v verb, s *steerFlags, pos []string) error {
	if strings.TrimSpace(s.reason) == "" {
		return usageError("%s needs --reason: why, recorded in the rollout's history (fix: add --reason \"<why>\")", v.name)
	}
	if answers[v.name] && s.by != "" {
		return usageError("%w", errByAnswers)
	}
	cn, err := a.connect()
	if err != nil {
		return failed(err)
	}
	r, err := steer.Open(a.ctx, cn.kc.CoreV1(), cn.namespace, pos[0], s.who(cn.user), s.reason)
	if apierrors.IsNotFound(err) {
		return failed(notFound(cn.namespace, pos[0]))
	}
	if err == nil && answers[v.name] {
		r, err = identify(a.ctx, cn.kc, r) // identity.go: approvals record who the API server authenticates
	}
	if err == nil {
		err = v.run(call{ctx: a.ctx, r: r, args: pos[1:], flags: *s})
	}
	if err != nil {
		return failed(err)
	}
	fmt.Fprintf(a.out, "%s: %s recorded; the agent acts on it and reports in `cmp-phase status %s`\n", pos[0], v.name, pos[0])
	return nil
}
