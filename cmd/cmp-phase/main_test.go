package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

func runCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestGenerateWritesManifestsOnlyOnSuccess(t *testing.T) {
	dir := t.TempDir()
	spec, err := os.ReadFile("../../internal/render/testdata/spec-v2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "appset.yaml"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	inv := "../../internal/render/testdata/inventory.json"

	out, errOut, code := runCmd(t, "generate", "--dir", dir, "--inventory-file", inv)
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "---\n{\"apiVersion\":\"v1\",\"data\"") {
		t.Fatalf("first deployment: code %d stderr %q stdout %.200q", code, errOut, out)
	}

	t.Setenv(contract.PluginEnvPhaseGen, "3")
	out, errOut, code = runCmd(t, "generate", "--dir", dir, "--inventory-file", inv)
	if code != 1 || out != "" || !strings.Contains(errOut, "PHASE_GEN is 3 but there is no state") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("missing state: code %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestValidateLimits: a hook over a limit is an error naming the setting to raise; with the
// setting raised (as the agent would run) it is accepted, the other problems stay.
func TestValidateLimits(t *testing.T) {
	const uc3 = "../../internal/spec/testdata/seeds/000-compliance-deployment.yaml"
	_, errOut, code := runCmd(t, "validate", uc3)
	if code != 1 || !strings.Contains(errOut, "preHooks[1].timeout: 24h is over --max-command-timeout (30m) (fix: raise --max-command-timeout") {
		t.Fatalf("UC3 with the defaults: %d %q", code, errOut)
	}
	_, errOut, code = runCmd(t, "validate", "--max-command-timeout", "24h", uc3)
	if code != 1 || strings.Contains(errOut, "timeout") || !strings.Contains(errOut, "spec.template: is required") {
		t.Fatalf("UC3 with --max-command-timeout 24h: %d %q", code, errOut)
	}
	_, errOut, code = runCmd(t, "validate", "--max-command-timeout", "2h", "../../internal/render/testdata/err-hook-limits/spec.yaml")
	if code != 1 || strings.Count(errOut, "\n") != 3 || strings.Contains(errOut, "preHooks[0].timeout") {
		t.Fatalf("raised limit: %d %q", code, errOut)
	}
}

func TestValidateExitCodesAndLines(t *testing.T) {
	out, _, code := runCmd(t, "validate", "../../internal/spec/testdata/seeds/003-guestbook-rolling-sync.yaml")
	if code != 0 || !strings.Contains(out, "valid (RollingSync, 3 phases)") {
		t.Fatalf("valid seed: %d %q", code, out)
	}
	_, errOut, code := runCmd(t, "validate", "../../internal/render/testdata/err-hook-limits/spec.yaml")
	if code != 1 || strings.Count(errOut, "\n") != 4 || !strings.Contains(errOut, "spec.yaml:30: spec.generators[0].deploymentStrategy.phases[1].preHooks[0].timeout") {
		t.Fatalf("invalid spec: %d %q", code, errOut)
	}
	if _, _, code := runCmd(t, "validate"); code != 2 {
		t.Fatalf("no arguments: want usage exit 2, got %d", code)
	}
	if _, errOut, code := runCmd(t, "validate", "--max-command-timeout", "0s", "x.yaml"); code != 2 || !strings.Contains(errOut, "--max-command-timeout must be positive") {
		t.Fatalf("a zero limit: want usage exit 2, got %d %q", code, errOut)
	}
	if _, _, code := runCmd(t, "frobnicate"); code != 2 {
		t.Fatalf("unknown command: want 2, got %d", code)
	}
}

// TestValidateListsChildrenNotPhased: with the parent's repository named, validate lists
// each child that follows a moving ref elsewhere, and none when they deploy from it.
func TestValidateListsChildrenNotPhased(t *testing.T) {
	seed := "../../internal/spec/testdata/seeds/003-guestbook-rolling-sync.yaml"
	out, _, code := runCmd(t, "validate", "--repo-url", "https://git.example.com/parent.git", seed)
	if code != 0 || strings.Count(out, "not phased: follows https://github.com/infra-team/cluster-deployments.git@HEAD") != 3 || !strings.Contains(out, "engineering-qa-guestbook: not phased") {
		t.Fatalf("three children not phased: %d %q", code, out)
	}
	out, _, _ = runCmd(t, "validate", "--repo-url", "https://github.com/infra-team/cluster-deployments", seed)
	if strings.Contains(out, "not phased") {
		t.Fatalf("children of the parent's repository are phased: %q", out)
	}
}

func TestSteeringCommandsRefuseBadFlagsBeforeTouchingAnything(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want string // the message names the flag or value, and the fix
	}{
		"pause without a reason":      {[]string{"pause", "guestbook"}, `pause needs --reason: why, recorded in the rollout's history (fix: add --reason "<why>")`},
		"approve without a phase":     {[]string{"approve", "guestbook", "--reason", "ok"}, `approve takes the rollout and <phase>, got ["guestbook"] (fix: cmp-phase approve <rollout> <phase> --reason <why>`},
		"skip without a child":        {[]string{"skip", "guestbook", "--reason", "flaky"}, "skip takes the rollout and <child>..."},
		"jump with two phases":        {[]string{"jump", "guestbook", "prod", "staging", "--reason", "x"}, `got ["guestbook" "prod" "staging"]`},
		"status in an unknown format": {[]string{"status", "guestbook", "-o", "xml"}, `-o "xml" is not an output format here (fix: one of json, yaml, name, wide, jsonpath=`},
		"status in a broken jsonpath": {[]string{"status", "guestbook", "-o", "jsonpath={.phase"}, `-o jsonpath={.phase: error parsing jsonpath {.phase, unclosed action (fix:`},
		"status of no rollout":        {[]string{"status"}, "status takes one rollout, got 0 argument(s)"},
		"status --watch and --wait":   {[]string{"status", "web", "--watch", "--wait"}, "[wait watch] were all set"},
		"status --timeout alone":      {[]string{"status", "web", "--timeout", "1m"}, "--timeout 1m0s without --wait (fix: add --wait"},
		"a single-dash long flag":     {[]string{"status", "web", "-watch"}, "-watch: long flags take two dashes (fix: --watch)"},
		"a bad duration":              {[]string{"status", "web", "--wait", "--timeout", "soon"}, `invalid argument "soon" for "--timeout" flag`},
		"stop-all without a reason":   {[]string{"stop-all"}, "stop-all needs --reason"},
		"an unknown command":          {[]string{"frobnicate"}, `unknown command "frobnicate" for "cmp-phase"`},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), tc.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) || !strings.Contains(errb.String(), "--help' for usage") {
				t.Fatalf("exit %d, stderr %q, want %q", code, errb.String(), tc.want)
			}
		})
	}
}

func TestTheExamplesValidate(t *testing.T) {
	entries, err := filepath.Glob("../../examples/*")
	var dirs []string
	for _, e := range entries {
		if fi, err := os.Stat(e); err == nil && fi.IsDir() {
			dirs = append(dirs, e)
		}
	}
	if err != nil || len(dirs) < 4 {
		t.Fatalf("examples: %v %v", dirs, err)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"validate"}, dirs...), &out, &errb); code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errb.String())
	}
}

// TestValidateRendersListChildren: validate renders a list generator's children as the
// plugin will, so seed 001's example, whose region label no list element can fill, is
// refused naming the child and the label rather than accepted and then refused by the API
// server (as it is when Argo CD's own ApplicationSet controller generates it).
func TestValidateRendersListChildren(t *testing.T) {
	_, errOut, code := runCmd(t, "validate", "../../internal/spec/testdata/seeds/001-guestbook-rolling-update.yaml")
	if code != 1 || !strings.Contains(errOut, `child engineering-dev-guestbook: template.metadata.labels.region renders "{{metadata.labels.cluster/region}}", not a valid label value`) {
		t.Fatalf("want the region label refused: %d %q", code, errOut)
	}
}

// TestValidatePrintsTheCanonicalFailurePolicy: seed 004's spellings validate, and validate
// says how each is read.
func TestValidatePrintsTheCanonicalFailurePolicy(t *testing.T) {
	src := `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: demo}
spec:
  generators:
  - list: {elements: [{name: a, server: 'https://a'}]}
    deploymentStrategy:
      type: phaseDeployment
      phases:
      - name: all
        targets: [{clusters: [a]}]
        preHooks:
        - {name: migrate, type: http, failurePolicy: Retry, http: {url: 'https://hooks.example.com/m'}}
        postHooks:
        - {name: notify, type: http, failurePolicy: Continue, http: {url: 'https://hooks.example.com/n'}}
  template:
    metadata: {name: '{{name}}-demo'}
    spec:
      project: default
      source: {repoURL: 'https://example.com/x.git', path: p}
      destination: {server: '{{server}}', namespace: demo}
`
	file := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd(t, "validate", file)
	if code != 0 || !strings.Contains(out, `preHooks[0].failurePolicy: "Retry" is read as retry`) || !strings.Contains(out, `postHooks[0].failurePolicy: "Continue" is read as ignore`) {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
}

// TestGenerateShowsEachChildsPosition: generate over a state whose rollout admitted dev-2
// then dev-1 in dev shows each child's place on its cmp-phase.io/position annotation.
func TestGenerateShowsEachChildsPosition(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../internal/render/testdata/spec-v2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "appset.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Parse("appset.yaml", b, targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	_, body, id, err := s.Revision()
	if err != nil {
		t.Fatal(err)
	}
	st := &state.State{Schema: state.Schema, Generation: 2, Deployed: id, Children: []string{"guestbook-dev-1", "guestbook-dev-2"},
		Revisions: map[string]json.RawMessage{id: body},
		Rollout: &state.Rollout{Revision: id, Status: state.RolloutCompleted, Phases: []state.PhaseState{
			{Name: "dev", Admitted: []string{"guestbook-dev-2", "guestbook-dev-1"}}, {Name: "staging"}, {Name: "prod"}}}}
	js, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	stateFile := filepath.Join(dir, "state.json")
	if err := os.WriteFile(stateFile, js, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd(t, "generate", "--dir", dir, "--inventory-file", "../../internal/render/testdata/inventory.json", "--state-file", stateFile)
	for _, want := range []string{`"cmp-phase.io/position":"phase=dev,index=1,count=3,rank=2","cmp-phase.io/revision":"` + id + `"},"finalizers":["resources-finalizer.argocd.argoproj.io"],"labels":{"cmp-phase.io/cluster":"dev-1"`,
		`"cmp-phase.io/position":"phase=dev,index=1,count=3,rank=1","cmp-phase.io/revision":"` + id + `"},"finalizers":["resources-finalizer.argocd.argoproj.io"],"labels":{"cmp-phase.io/cluster":"dev-2"`} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("code %d stderr %q: want %s in\n%s", code, errOut, want, out)
		}
	}
}
