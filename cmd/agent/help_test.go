package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/startup/versioncmd"
)

// builtAgent is the agent built once per test run: these tests run the real binary, as
// the manifests do.
var builtAgent = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "cmp-phase-agent-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "agent")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", errors.New(string(out))
	}
	return bin, nil
})

// runAgent runs the built agent with args and env (added to a clean environment): its stdout,
// stderr and exit code.
func runAgent(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	bin, err := builtAgent()
	if err != nil {
		t.Fatalf("go build: %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"HOME=" + t.TempDir()}, env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("agent %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// TestHelpExitsZeroAndNamesEachFlagsType: --help prints to stdout and exits 0; pflag takes
// a backquoted phrase in a usage as the flag's argument name (--argocd-token-file
// applications, get), and no usage has one, so every flag line says the flag's type.
func TestHelpExitsZeroAndNamesEachFlagsType(t *testing.T) {
	help, errOut, code := runAgent(t, nil, "--help")
	if code != 0 || errOut != "" {
		t.Fatalf("--help: exit %d, stderr %q", code, errOut)
	}
	flagLine := regexp.MustCompile(`^  (-[a-z], |    )--[a-z-]+( (string|duration|int|int64|float|value|stringArray|func))? {2,}\S`)
	lines := 0
	for _, l := range strings.Split(help, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "-") {
			lines++
			if !flagLine.MatchString(l) {
				t.Errorf("help line %q: a flag's argument is named by its type", l)
			}
		}
	}
	if lines < 40 || !strings.Contains(help, "--argocd-token-file string") || !strings.Contains(help, "CMP_PHASE_AGENT_<FLAG>") {
		t.Errorf("help:\n%s", help)
	}
}

// TestVersionPrintsTextOrADocument: `version` prints the line --version prints, and -o
// json the same fields as cmp-phase version -o json, exit 0.
func TestVersionPrintsTextOrADocument(t *testing.T) {
	line, _, code := runAgent(t, nil, "--version")
	if code != 0 || !strings.HasPrefix(line, "agent ") || !strings.HasSuffix(line, ", "+runtime.Version()+")\n") {
		t.Fatalf("--version: %d %q", code, line)
	}
	if out, _, code := runAgent(t, nil, "version"); code != 0 || out != line {
		t.Fatalf("version: %d %q, want %q", code, out, line)
	}
	out, errOut, code := runAgent(t, nil, "version", "-o", "json")
	var doc versioncmd.Doc
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Binary != "agent" || doc.Line()+"\n" != line {
		t.Fatalf("version -o json: %d %v %q %q", code, err, out, errOut)
	}
	if _, errOut, code := runAgent(t, nil, "version", "-o", "xml"); code != 2 || !strings.Contains(errOut, `-o "xml" is not an output format of version`) {
		t.Fatalf("version -o xml: %d %q", code, errOut)
	}
}

// TestTheEnvironmentSetsFlagsTheCommandLineWins: CMP_PHASE_AGENT_<FLAG> sets a flag (a
// bad value refused, naming the variable); the same flag on the command line wins, also
// given with one dash as Go's flag package took it (the agent then goes on to start, and
// fails on the kubeconfig); a variable that names no flag is refused.
func TestTheEnvironmentSetsFlagsTheCommandLineWins(t *testing.T) {
	_, errOut, code := runAgent(t, []string{"CMP_PHASE_AGENT_INVENTORY_POLL=0s"})
	if code != 2 || !strings.Contains(errOut, "--inventory-poll 0s is not positive") {
		t.Fatalf("a bad value from the environment: %d %q", code, errOut)
	}
	noKube := []string{"--kubeconfig", filepath.Join(t.TempDir(), "none"), "--metrics-addr", ""}
	for _, poll := range []string{"--inventory-poll", "-inventory-poll"} {
		_, errOut, code = runAgent(t, []string{"CMP_PHASE_AGENT_INVENTORY_POLL=0s", "CMP_PHASE_AGENT_LOG_LEVEL=debug"}, append(noKube, poll, "5s")...)
		if code != 1 || !strings.Contains(errOut, "agent starting") || !strings.Contains(errOut, `"flagsFromEnvironment":["log-level"]`) {
			t.Fatalf("%s 5s over the environment's 0s: %d %q", poll, code, errOut)
		}
		if oneDash := strings.Contains(errOut, "long flags given with one dash"); oneDash != (poll == "-inventory-poll") {
			t.Fatalf("%s: warned of one dash %v: %q", poll, oneDash, errOut)
		}
	}
	_, errOut, code = runAgent(t, []string{"CMP_PHASE_AGENT_INVENTORY_FORM=argocd"}, noKube...)
	if code != 2 || !strings.Contains(errOut, "CMP_PHASE_AGENT_INVENTORY_FORM names no flag of the agent (fix: ") {
		t.Fatalf("a misspelt variable: %d %q", code, errOut)
	}
}
