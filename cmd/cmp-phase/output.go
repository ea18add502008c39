package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/yaml"
)

// output is kubectl's -o/--output: the table (default), wide, json, yaml, name, and the
// template printers of k8s.io/cli-runtime (jsonpath=…, go-template=…, with --template).
// json and yaml print the command's stable document as it is; jsonpath and go-template
// query that same document.
type output struct {
	pf        *genericclioptions.PrintFlags
	wide      bool // the command has a wide table
	noHeaders bool // --no-headers: the table without its column headers
}

// newOutput registers -o and --no-headers on c.
func newOutput(c *cobra.Command, wide bool) *output {
	o := &output{pf: genericclioptions.NewPrintFlags("").WithDefaultOutput(""), wide: wide}
	o.pf.AddFlags(c)
	c.Flags().Lookup("output").Usage = "output format: " + strings.Join(o.formats(), ", ") + " (default: a table)"
	c.Flags().BoolVar(&o.noHeaders, "no-headers", false, "leave out the table's column headers (the other formats have none; as kubectl, ignored there)")
	return o
}

func (o *output) formats() []string {
	f := []string{"json", "yaml", "name"}
	if o.wide {
		f = append(f, "wide")
	}
	return append(f, "jsonpath=…", "jsonpath-as-json=…", "jsonpath-file=…", "go-template=…", "go-template-file=…")
}

func (o *output) format() string { return *o.pf.OutputFormat }

// table says whether the output is a table (wide too).
func (o *output) table() bool { return o.format() == "" || (o.wide && o.format() == "wide") }

// check refuses an unknown format or a template that does not parse, naming the value and
// the choices: before anything is read.
func (o *output) check() error {
	switch o.format() {
	case "", "json", "yaml", "name":
		return nil
	case "wide":
		if o.wide {
			return nil
		}
	}
	_, err := o.templatePrinter()
	return err
}

func (o *output) templatePrinter() (printers.ResourcePrinter, error) {
	p, err := o.pf.TemplatePrinterFlags.ToPrinter(o.format())
	switch {
	case genericclioptions.IsNoCompatiblePrinterError(err):
		return nil, fmt.Errorf("-o %q is not an output format here (fix: one of %s)", o.format(), strings.Join(o.formats(), ", "))
	case err != nil:
		return nil, fmt.Errorf("-o %s: %w (fix: check the template's syntax, e.g. -o jsonpath='{.status}')", o.format(), err)
	}
	return p, nil
}

// print writes doc in the format: names one per line for name (kubectl's kind/name), and
// the table through table.
func (o *output) print(w io.Writer, doc any, names []string, table func(io.Writer) error) error {
	switch o.format() {
	case "", "wide":
		return table(w)
	case "json":
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return fmt.Errorf("encode json: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case "yaml":
		b, err := yaml.Marshal(doc)
		if err != nil {
			return fmt.Errorf("encode yaml: %w", err)
		}
		_, err = fmt.Fprintf(w, "---\n%s", b)
		return err
	case "name":
		for _, n := range names {
			if _, err := fmt.Fprintf(w, "rollout/%s\n", n); err != nil {
				return err
			}
		}
		return nil
	}
	p, err := o.templatePrinter()
	if err != nil {
		return err
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(b, &u.Object); err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	return p.PrintObj(u, w)
}
