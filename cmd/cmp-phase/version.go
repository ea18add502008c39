package main

import (
	"github.com/spf13/cobra"

	"github.com/cmp-phase/cmp-phase/internal/startup/versioncmd"
)

// newVersion is the version command the agent shares (internal/startup/versioncmd).
func newVersion(a *app) *cobra.Command {
	c := versioncmd.New("cmp-phase", `  cmp-phase version
  cmp-phase version -o json
  kubectl cmp-phase version --short`)
	c.Args = exactArgs(0, "no arguments")
	print := c.RunE
	c.RunE = func(c *cobra.Command, args []string) error { return failed(print(c, args)) }
	return c
}
