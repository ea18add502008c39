// Command securitytable prints the security page's table of adversarial tests and fault
// tests, counted from the tests themselves (see package sectable); with -w it writes it
// into docs/security.md between its markers, with -v it lists each test's cases. Run it
// from the repository's root: go run ./hack/securitytable -w
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cmp-phase/cmp-phase/hack/securitytable/sectable"
)

func main() {
	write := flag.Bool("w", false, "write the table into "+sectable.Page)
	verbose := flag.Bool("v", false, "list each test's cases")
	flag.Parse()
	if err := run(*write, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "securitytable:", err)
		os.Exit(1)
	}
}

func run(write, verbose bool) error {
	if verbose {
		return list()
	}
	block, err := sectable.Generate(".")
	if err != nil {
		return err
	}
	if !write {
		fmt.Print(block)
		return nil
	}
	page, err := os.ReadFile(sectable.Page)
	if err != nil {
		return err
	}
	out, err := sectable.Splice(string(page), block)
	if err != nil {
		return err
	}
	return os.WriteFile(sectable.Page, []byte(out), 0o644)
}

// list prints every area's tests with their cases.
func list() error {
	as, err := sectable.Areas(".")
	if err != nil {
		return err
	}
	for _, a := range as {
		fmt.Printf("%s: %d\n", a.Name, a.Total())
		for _, c := range a.Tests {
			fmt.Printf("  %4d  %s:%s\n", c.Cases, c.Dir, c.Test)
		}
	}
	return nil
}
