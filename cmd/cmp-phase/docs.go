package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// docsDir is where the generated command reference lives in the repository.
const docsDir = "docs/reference/cli"

// newDocs is the hidden command that writes the command reference, one Markdown page per
// command (cobra/doc); a test fails when the committed pages differ from it.
func newDocs(a *app) *cobra.Command {
	dir := docsDir
	c := &cobra.Command{
		Use:    "docs",
		Short:  "Write the command reference as Markdown into --dir",
		Hidden: true,
		Long: `Write the command reference, one Markdown page per command, into --dir (run it at the
root of the repository; docs/reference/cli is what the repository holds).

Exit codes: 0 written; 1 it could not write; 2 bad usage.`,
		Example: `  go run ./cmd/cmp-phase docs --dir docs/reference/cli`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			return failed(writeDocs(c.Root(), dir))
		},
	}
	c.Flags().StringVar(&dir, "dir", dir, "directory to write the pages into")
	return c
}

// writeDocs writes the reference of root into dir.
func writeDocs(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("docs: %w", err)
	}
	root.DisableAutoGenTag = true
	if err := doc.GenMarkdownTree(root, dir); err != nil {
		return fmt.Errorf("docs: write %s: %w", dir, err)
	}
	return nil
}
