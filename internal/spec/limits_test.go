package spec_test

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"

	_ "github.com/cmp-phase/cmp-phase/internal/hooks/all"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// manyEnv is a command hook declaring n variables (YAML flow style).
func manyEnv(n int) string {
	vars := make([]string, n)
	for i := range vars {
		vars[i] = fmt.Sprintf("PARAM_V%d: x", i)
	}
	return "{name: a, type: command, command: {command: [x], env: {" + strings.Join(vars, ", ") + "}}}"
}

func manyHeaders(n int) string {
	hs := make([]string, n)
	for i := range hs {
		hs[i] = fmt.Sprintf("H%d: x", i)
	}
	return "{name: a, type: http, http: {url: 'https://x', headers: {" + strings.Join(hs, ", ") + "}}}"
}

// TestLimits: the parser accepts a hook over a limit; CheckLimits refuses it, locating the
// field and naming the setting to raise; raised limits accept it.
func TestLimits(t *testing.T) {
	for name, c := range map[string]struct {
		hook   string
		want   string
		raised spec.Limits
	}{
		"a command timeout": {"{name: a, type: command, timeout: 24h, command: {command: [x]}}",
			"spec.yaml:14: spec.generators[0].deploymentStrategy.phases[0].checks[0].timeout: 24h is over --max-command-timeout (30m) (fix: raise --max-command-timeout on the agent (and for cmp-phase validate) or shorten the timeout)",
			spec.Limits{CommandTimeout: 24 * time.Hour}},
		"an http timeout": {"{name: a, type: http, timeout: 11m, http: {url: 'https://x'}}",
			"checks[0].timeout: 11m is over --max-http-timeout (10m) (fix: raise --max-http-timeout",
			spec.Limits{HTTPTimeout: time.Hour}},
		"env vars": {manyEnv(101), "checks[0].command.env: has 101 variables, over --max-env-vars (100) (fix: raise --max-env-vars on the agent (and for cmp-phase validate) or pass fewer variables)",
			spec.Limits{EnvVars: 101}},
		"headers": {manyHeaders(51), "checks[0].http.headers: has 51 headers, over --max-headers (50)", spec.Limits{Headers: 200}},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := spec.ParseWithCheck(c.hook)
			if err != nil {
				t.Fatalf("the parser refuses no limit: %v", err)
			}
			errs := spec.CheckLimits(s, spec.DefaultLimits())
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want) {
				t.Fatalf("CheckLimits = %v, want one containing %q", errs, c.want)
			}
			if errs := spec.CheckLimits(s, c.raised); len(errs) != 0 {
				t.Fatalf("raised limits %+v still refuse: %v", c.raised, errs)
			}
		})
	}
}

func TestLimitsAcceptWhatFits(t *testing.T) {
	for _, hook := range []string{
		"{name: a, type: command, timeout: 30m, command: {command: [x]}}",
		"{name: a, type: http, timeout: 10m, http: {url: 'https://x'}}",
		manyEnv(100), manyHeaders(50),
	} {
		s, err := spec.ParseWithCheck(hook)
		if err != nil {
			t.Fatal(err)
		}
		if errs := spec.CheckLimits(s, spec.Limits{}); len(errs) != 0 {
			t.Errorf("%.60s: %v", hook, errs)
		}
	}
}

// TestSeedComplianceTimeout: seed 000 UC3's 24h approval hook is over the default command
// limit, reported beside the missing template; raised to 24h, only the template is left.
func TestSeedComplianceTimeout(t *testing.T) {
	f := "testdata/seeds/000-compliance-deployment.yaml"
	b := spec.MustReadFile(t, f)
	if _, err := spec.Parse(f, b, targets.NewCache(8)); err == nil || strings.Contains(err.Error(), "timeout") {
		t.Fatalf("Parse: want only the missing template, got %v", err)
	}
	_, err := spec.ParseChecked(f, b, targets.NewCache(8), spec.DefaultLimits())
	if err == nil || !strings.Contains(err.Error(), "preHooks[1].timeout: 24h is over --max-command-timeout (30m)") ||
		!strings.Contains(err.Error(), "spec.template: is required") {
		t.Fatalf("ParseChecked with the defaults: %v", err)
	}
	l := spec.DefaultLimits()
	l.CommandTimeout = 24 * time.Hour
	_, err = spec.ParseChecked(f, b, targets.NewCache(8), l)
	if err == nil || strings.Contains(err.Error(), "timeout") || !strings.Contains(err.Error(), "spec.template: is required") {
		t.Fatalf("ParseChecked with --max-command-timeout 24h: %v", err)
	}
}

func TestLoadChecked(t *testing.T) {
	dir := t.TempDir()
	src := strings.Replace(string(spec.SpecWith("'true'", "1")), "        percentage: 10\n",
		"        percentage: 10\n        postHooks:\n        - {name: a, type: command, timeout: 1h, command: {command: [x]}}\n", 1)
	if err := os.WriteFile(dir+"/spec.yaml", []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := spec.Load(dir, targets.NewCache(8)); err != nil {
		t.Fatalf("Load refuses no limit: %v", err)
	}
	if _, err := spec.LoadChecked(dir, targets.NewCache(8), spec.Limits{}); err == nil || !strings.Contains(err.Error(), "spec.yaml:14: spec.generators[0].deploymentStrategy.phases[0].postHooks[0].timeout: 1h is over --max-command-timeout") {
		t.Fatalf("LoadChecked: %v", err)
	}
	if _, err := spec.LoadChecked(dir, targets.NewCache(8), spec.Limits{CommandTimeout: time.Hour}); err != nil {
		t.Fatalf("LoadChecked raised: %v", err)
	}
}

func TestLimitsFlags(t *testing.T) {
	l := spec.DefaultLimits()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	l.BindFlags(fs)
	l.BindRunFlags(fs)
	if err := fs.Parse([]string{"--max-command-timeout", "24h", "--max-headers", "60", "--max-checks-per-phase", "3"}); err != nil {
		t.Fatal(err)
	}
	want := spec.DefaultLimits()
	want.CommandTimeout, want.Headers, want.ChecksAtOnce = 24*time.Hour, 60, 3
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("bound %+v, want %+v", l, want)
	}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	l.EnvVars = 0
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "--max-env-vars must be positive") {
		t.Fatalf("Validate: %v", err)
	}
}

func TestShort(t *testing.T) {
	for d, want := range map[time.Duration]string{24 * time.Hour: "24h", 30 * time.Minute: "30m", 90 * time.Minute: "1h30m", 90 * time.Second: "1m30s", 5 * time.Second: "5s"} {
		if got := spec.Short(d); got != want {
			t.Errorf("Short(%s) = %q, want %q", d, got, want)
		}
	}
}
