package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/startup/versioncmd"
)

// exitCode runs the built binary with args: its stdout, stderr and exit code.
func exitCode(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return string(out), stderr.String(), ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return string(out), stderr.String(), 0
}

// TestVersionPrintsTextOrADocument: version prints a line (as --version does), -o json and
// -o yaml the same fields as a document, exit 0; an unknown -o is bad usage.
func TestVersionPrintsTextOrADocument(t *testing.T) {
	bin := builtBinary(t)
	line, _, code := exitCode(t, bin, "version")
	if code != 0 || !strings.HasPrefix(line, "cmp-phase ") || !strings.HasSuffix(line, ", "+runtime.Version()+")\n") {
		t.Fatalf("version: %d %q", code, line)
	}
	if flag, _, code := exitCode(t, bin, "--version"); code != 0 || flag != line {
		t.Fatalf("--version: %d %q, want %q", code, flag, line)
	}
	out, errOut, code := exitCode(t, bin, "version", "-o", "json")
	var doc versioncmd.Doc
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Binary != "cmp-phase" || doc.GoVersion != runtime.Version() || doc.Line()+"\n" != line {
		t.Fatalf("version -o json: %d %v %q %q", code, err, out, errOut)
	}
	if out, _, code := exitCode(t, bin, "version", "--output", "yaml"); code != 0 || !strings.Contains(out, "binary: cmp-phase\n") || !strings.Contains(out, "goVersion: "+runtime.Version()) {
		t.Fatalf("version -o yaml: %d %q", code, out)
	}
	if _, errOut, code := exitCode(t, bin, "version", "-o", "xml"); code != 2 || !strings.Contains(errOut, `-o "xml" is not an output format of version (fix: json or yaml`) {
		t.Fatalf("version -o xml: %d %q", code, errOut)
	}
	if out, _, code := exitCode(t, bin, "version", "--short"); code != 0 || out != doc.Version+"\n" {
		t.Fatalf("version --short: %d %q", code, out)
	}
}
