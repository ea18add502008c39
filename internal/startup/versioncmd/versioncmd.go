package versioncmd

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/telemetry"
)

// Doc is what -o json and -o yaml print; fields are only ever added.
type Doc struct {
	Binary    string `json:"binary"`
	Version   string `json:"version"`
	Revision  string `json:"revision"`
	GoVersion string `json:"goVersion"`
}

// Of is binary's document.
func Of(binary string) Doc {
	return Doc{Binary: binary, Version: telemetry.Version(), Revision: telemetry.Revision(), GoVersion: runtime.Version()}
}

// Line is the text form: "cmp-phase v1.2.3 (revision abc, go1.26.1)".
func (d Doc) Line() string {
	return fmt.Sprintf("%s %s (revision %s, %s)", d.Binary, d.Version, d.Revision, d.GoVersion)
}

// Write prints d as format: "" a line, "json" or "yaml" the document.
func (d Doc) Write(w io.Writer, format string, short bool) error {
	switch {
	case format == "" && short:
		_, err := fmt.Fprintln(w, d.Version)
		return err
	case format == "":
		_, err := fmt.Fprintln(w, d.Line())
		return err
	case format == "json":
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return fmt.Errorf("encode json: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case format == "yaml":
		b, err := yaml.Marshal(d)
		if err != nil {
			return fmt.Errorf("encode yaml: %w", err)
		}
		_, err = w.Write(b)
		return err
	}
	return fmt.Errorf("-o %q is not an output format of version (fix: json or yaml, or no -o for a line of text)", format)
}

// New is the version command of binary; example is its Examples section.
func New(binary, example string) *cobra.Command {
	var format string
	var short bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version, VCS revision and Go version",
		Long: `Print the version (stamped at build time), the VCS revision and the Go version: a line
of text, or with -o json or -o yaml a document of the same fields (binary, version,
revision, goVersion).

Exit codes: 0; 2 bad usage.`,
		Example: example,
		Args:    cobra.NoArgs,
		PreRunE: func(c *cobra.Command, args []string) error {
			if format != "" && format != "json" && format != "yaml" {
				return fmt.Errorf("-o %q is not an output format of version (fix: json or yaml, or no -o for a line of text)", format)
			}
			if short && format != "" {
				return fmt.Errorf("--short with -o %s (fix: one of them; -o %s has the version too)", format, format)
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return Of(binary).Write(c.OutOrStdout(), format, short)
		},
	}
	c.Flags().StringVarP(&format, "output", "o", "", "json or yaml: the fields as a document (default: a line of text)")
	c.Flags().BoolVar(&short, "short", false, "print the version only")
	return c
}
