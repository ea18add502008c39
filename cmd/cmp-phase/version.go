package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cmp-phase/cmp-phase/internal/telemetry"
)

func newVersion(a *app) *cobra.Command {
	var short bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version, VCS revision and Go version",
		Long: `Print the version (stamped at build time), the VCS revision and the Go version.

Exit codes: 0; 2 bad usage.`,
		Example: `  cmp-phase version
  kubectl cmp-phase version --short`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			if short {
				fmt.Fprintln(c.OutOrStdout(), telemetry.Version())
				return nil
			}
			fmt.Fprintln(c.OutOrStdout(), versionLine())
			return nil
		},
	}
	c.Flags().BoolVar(&short, "short", false, "print the version only")
	return c
}
