package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/inputs"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// runValidate parses and validates each file or directory; it prints one line per problem
// (file:line: field: message (fix: ...)) and exits 1 if any.
func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repoURL := fs.String("repo-url", "", "the parent's repository: also list the children whose sources are not phased (a moving ref elsewhere)")
	invFile := fs.String("inventory-file", "", "with --repo-url: the inventory a clusters generator draws from (default: none)")
	ref := fs.String("target-revision", "HEAD", "with --repo-url: the parent's targetRevision")
	limits := spec.DefaultLimits()
	limits.BindFlags(fs) // the agent's settings of the same names: what it will run
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := limits.Validate(); err != nil {
		fmt.Fprintln(stderr, "validate:", err)
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: cmp-phase validate <file|dir>...")
		return 2
	}
	exprs := targets.NewCache(256)
	failed := false
	for _, p := range fs.Args() {
		s, err := validateOne(p, exprs, limits)
		if err != nil {
			failed = true
			printErrors(stderr, err)
			continue
		}
		if err := dryRender(s, *invFile); err != nil {
			failed = true
			fmt.Fprintf(stderr, "%s: %s\n", p, oneLine(err))
			continue
		}
		fmt.Fprintf(stdout, "%s: valid (%s, %d phases)\n", p, s.Dialect, len(s.Phases))
		for _, note := range s.Notes.Lines() {
			fmt.Fprintln(stdout, note) // a spelling read in its canonical form
		}
		if *repoURL != "" {
			if err := listUnphased(stdout, s, render.Source{RepoURL: *repoURL, TargetRevision: *ref}, *invFile); err != nil {
				failed = true
				fmt.Fprintln(stderr, oneLine(err))
			}
		}
	}
	if failed {
		return 1
	}
	return 0
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
// generators always, for a clusters generator over --inventory-file when given.
func dryRender(s *spec.Spec, invFile string) error {
	inv := &inventory.Inventory{}
	if invFile != "" {
		var err error
		if inv, err = inputs.InventoryFromFile(invFile); err != nil {
			return err
		}
	}
	for _, g := range s.Generators {
		if g.Clusters != nil && invFile == "" {
			return nil
		}
	}
	return render.Check(s, inv)
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
