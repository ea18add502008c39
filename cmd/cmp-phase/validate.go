package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// runValidate parses and validates each file or directory; it prints one line per problem
// (file:line: field: message (fix: ...)) and exits 1 if any.
func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: cmp-phase validate <file|dir>...")
		return 2
	}
	exprs := targets.NewCache(256)
	failed := false
	for _, p := range fs.Args() {
		s, err := validateOne(p, exprs)
		if err != nil {
			failed = true
			printErrors(stderr, err)
			continue
		}
		fmt.Fprintf(stdout, "%s: valid (%s, %d phases)\n", p, s.Dialect, len(s.Phases))
	}
	if failed {
		return 1
	}
	return 0
}

func validateOne(path string, exprs *targets.Cache) (*spec.Spec, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	if st.IsDir() {
		return spec.Load(path, exprs)
	}
	if st.Size() > spec.MaxFileSize {
		return nil, fmt.Errorf("validate %s: %d bytes, over the limit of %d", path, st.Size(), spec.MaxFileSize)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	return spec.Parse(path, b, exprs)
}

func printErrors(w io.Writer, err error) {
	var es spec.Errors
	if errors.As(err, &es) {
		for _, e := range es {
			fmt.Fprintln(w, e.Error())
		}
		return
	}
	fmt.Fprintln(w, err.Error())
}
