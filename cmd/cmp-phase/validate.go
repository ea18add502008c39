package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// validateOptions are validate's flags.
type validateOptions struct {
	repoURL, invFile, ref string
	limits                spec.Limits
}

// newValidate parses and validates each file or directory; it prints one line per problem
// (file:line: field: message (fix: ...)) and exits 1 if any.
func newValidate(a *app) *cobra.Command {
	o := &validateOptions{limits: spec.DefaultLimits()}
	c := &cobra.Command{
		Use:     "validate <file|dir>...",
		GroupID: "plugin",
		Short:   "Check specs without any cluster",
		Long: `Parse and validate each spec file or directory without any cluster, and render a list
generator's children as the plugin will (a clusters generator's with --inventory-file).
Each problem is one line: file:line: field: message (fix: …). The hook limits are the
agent's settings of the same names: set them as the agent runs.

Exit codes: 0 every spec is valid; 1 a spec is refused; 2 bad usage.`,
		Example: `  cmp-phase validate examples/*/
  cmp-phase validate apps/guestbook/appset.yaml --max-command-timeout 2h
  cmp-phase validate apps/guestbook/ --repo-url https://github.com/acme/deploy.git`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("validate takes one or more spec files or directories (fix: %s)", c.UseLine())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.limits.Validate(); err != nil {
				return usageError("%w", err)
			}
			return exitWith(runValidate(args, o, a.out, a.errOut))
		},
	}
	fs := c.Flags()
	fs.StringVar(&o.repoURL, "repo-url", "", "the parent's repository: also list the children whose sources are not phased (a moving ref elsewhere)")
	fs.StringVar(&o.invFile, "inventory-file", "", "the inventory a clusters generator draws from (default: none)")
	fs.StringVar(&o.ref, "target-revision", "HEAD", "with --repo-url: the parent's targetRevision")
	gofs := flag.NewFlagSet("validate", flag.ContinueOnError)
	o.limits.BindFlags(gofs) // the agent's settings of the same names: what it will run
	fs.AddGoFlagSet(gofs)
	return c
}

// runValidate validates each path; the exit code is 1 if any is refused.
func runValidate(paths []string, o *validateOptions, stdout, stderr io.Writer) int {
	exprs := targets.NewCache(256)
	failed := false
	for _, p := range paths {
		s, err := validateOne(p, exprs, o.limits)
		if err != nil {
			failed = true
			printErrors(stderr, err)
			continue
		}
		unrendered, err := dryRender(s, o.invFile)
		if err != nil {
			failed = true
			if located := s.Locate(err); located != err {
				printErrors(stderr, located)
				continue
			}
			fmt.Fprintf(stderr, "%s: %s\n", p, oneLine(err))
			continue
		}
		fmt.Fprintf(stdout, "%s: valid (%s, %d phases)\n", p, s.Dialect, len(s.Phases))
		for _, note := range s.Notes.Lines() {
			fmt.Fprintln(stdout, note) // a spelling read in its canonical form
		}
		for _, ph := range s.Phases {
			if msg, many := spec.ManyHooksWarning(ph); many {
				fmt.Fprintf(stdout, "%s: warning: %s\n", p, msg)
			}
		}
		for _, c := range slices.Sorted(maps.Keys(unrendered)) {
			fmt.Fprintf(stdout, "%s: warning: child %s, which no step selects, is left out: its template cannot render: %s\n", p, c, unrendered[c])
		}
		if o.repoURL != "" {
			if err := listUnphased(stdout, s, render.Source{RepoURL: o.repoURL, TargetRevision: o.ref}, o.invFile); err != nil {
				failed = true
				fmt.Fprintln(stderr, oneLine(err))
			}
		}
	}
	if failed {
		return exitFailed
	}
	return exitOK
}

// validateOne parses one file or directory, reporting hooks over limits with the rest.
func validateOne(path string, exprs *targets.Cache, limits spec.Limits) (*spec.Spec, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	if st.IsDir() {
		return spec.LoadChecked(path, exprs, limits)
	}
	if st.Size() > spec.MaxFileSize {
		return nil, fmt.Errorf("validate %s: %d bytes, over the limit of %d", path, st.Size(), spec.MaxFileSize)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	return spec.ParseChecked(path, b, exprs, limits)
}

func printErrors(w io.Writer, err error) {
	var es spec.Errors
	if errors.As(err, &es) {
		for _, l := range es.Lines() {
			fmt.Fprintln(w, l)
		}
		return
	}
	fmt.Fprintln(w, err.Error())
}

// dryRender renders every child the spec generates, as the plugin will: for a spec of list
// generators always, for a clusters generator over --inventory-file when given. It returns
// the unselected children the render leaves out, with the reason (render.CheckReport).
func dryRender(s *spec.Spec, invFile string) (map[string]string, error) {
	inv := &inventory.Inventory{}
	if invFile != "" {
		var err error
		if inv, err = inputs.InventoryFromFile(invFile); err != nil {
			return nil, err
		}
	}
	for _, g := range s.Generators {
		if g.Clusters != nil && invFile == "" {
			return nil, nil
		}
	}
	return render.CheckReport(s, inv)
}

// listUnphased prints, per child, the sources that follow a moving ref cmp-phase cannot see.
func listUnphased(w io.Writer, s *spec.Spec, src render.Source, invFile string) error {
	inv := &inventory.Inventory{}
	if invFile != "" {
		var err error
		if inv, err = inputs.InventoryFromFile(invFile); err != nil {
			return err
		}
	}
	deps, err := render.New(1).Deploys(render.Input{Spec: s, Inventory: inv, Env: render.Env{Source: src}})
	if err != nil {
		return err
	}
	for _, child := range slices.Sorted(maps.Keys(deps.Unphased)) {
		fmt.Fprintf(w, "%s: not phased: follows %s, which cmp-phase cannot see (fix: pin targetRevision in the spec, e.g. from generator values, and bump it by a commit)\n", child, deps.Unphased[child])
	}
	return nil
}
