// Command testsummary reads `go test -json` events on stdin, prints the tests' output as
// `go test -v` would, and ends with what failed: each failed test's own lines, and for a
// package that failed outside a test (a timeout, a panic, TestMain) its last lines before
// the stack's logs. CI shows the end of a run; this puts the verdict there, not the
// thousands of log lines the e2e stack dumps when a test fails. It exits 1 when anything
// failed or the input was not test2json, so `set -o pipefail` keeps go test's verdict.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// event is test2json's TestEvent, the fields read here.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// Bounds of what is kept per test or package: the lines a test logged itself (t.Log,
// t.Error, t.Fatal: "    file_test.go:12: …"), and its last lines. A failing e2e test
// often dumps an Application or a log after its message, which must not push the message
// out.
const (
	keepLogged = 60
	keepTail   = 20
)

// logged matches the first line of a test's own log line.
var logged = regexp.MustCompile(`^\s+\S+\.go:\d+: `)

type kept struct {
	logged []string // the test's own log lines, first keepLogged
	tail   []string // the last keepTail lines
	dumped bool     // a package's output reached the stack's log dump
}

type run struct {
	lines  map[string]*kept // by package + " " + test
	failed []string         // keys, in order
}

func main() {
	r := &run{lines: map[string]*kept{}}
	ok, err := r.read(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: %v (fix: pipe `go test -json` into it)\n", err)
		os.Exit(1)
	}
	r.summary(os.Stdout)
	if !ok || len(r.failed) > 0 {
		os.Exit(1)
	}
}

// read copies every output line to w as it comes and keeps what a summary needs.
func (r *run) read(in io.Reader, w io.Writer) (bool, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	seen := false
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text()) // go build's own errors come as plain lines
			continue
		}
		seen = true
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			fmt.Fprint(w, e.Output)
			r.add(key, e.Output)
		case "fail":
			r.failed = append(r.failed, key)
		}
	}
	return seen, sc.Err()
}

// add keeps line under key; a package keeps nothing after the stack's log dump begins.
func (r *run) add(key, line string) {
	k := r.lines[key]
	if k == nil {
		k = &kept{}
		r.lines[key] = k
	}
	if k.dumped {
		return
	}
	if strings.HasSuffix(key, " ") && strings.HasPrefix(line, "---- log of ") {
		k.dumped, line = true, dumpMark
	}
	if logged.MatchString(line) && len(k.logged) < keepLogged {
		k.logged = append(k.logged, line)
	}
	if len(k.tail) == keepTail {
		k.tail = k.tail[1:]
	}
	k.tail = append(k.tail, line)
}

const dumpMark = "(the stack's logs follow in the full output)\n"

// summary prints each failure's own log lines, then its last lines.
func (r *run) summary(w io.Writer) {
	if len(r.failed) == 0 {
		return
	}
	fmt.Fprintf(w, "\n==== %d failed (tests, then packages); their own lines:\n", len(r.failed))
	for _, key := range r.failed {
		fmt.Fprintf(w, "\n==== FAIL %s\n", strings.TrimSpace(key))
		k := r.lines[key]
		if k == nil {
			continue
		}
		for _, l := range k.logged {
			fmt.Fprint(w, l)
		}
		fmt.Fprintln(w, "  … its last lines:")
		for _, l := range k.tail {
			fmt.Fprint(w, l)
		}
	}
}
