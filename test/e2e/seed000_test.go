//go:build e2e

package e2e

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// seedExample reads a seed example from internal/spec/testdata/seeds (a unit test proves
// those files are verbatim from the seeds) and makes the given replacements, each of which
// must occur exactly n times.
func seedExample(t *testing.T, file string, replace map[string]string, n map[string]int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "internal", "spec", "testdata", "seeds", file))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for from, to := range replace {
		want := max(n[from], 1)
		if got := strings.Count(s, from); got != want {
			t.Fatalf("%s has %q %d times, want %d", file, from, got, want)
		}
		s = strings.ReplaceAll(s, from, to)
	}
	return s
}

// hookScripts writes the executables seed 000's command hooks name into a directory the
// agent may run commands from (--hook-command-dir): each appends its name, arguments,
// HOOK_TYPE and TARGET_URL to the file SEED_HOOK_LOG names (passed with --hook-pass-env).
func hookScripts(t *testing.T, names ...string) (dir, log string) {
	t.Helper()
	dir, log = t.TempDir(), filepath.Join(t.TempDir(), "hooks.log")
	for _, n := range names {
		body := "#!/bin/sh\necho \"" + n + " $* type=$HOOK_TYPE url=$TARGET_URL\" >> \"$SEED_HOOK_LOG\"\n"
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, log
}

func readLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Fields(strings.ReplaceAll(string(b), " ", "_"))
}

// TestSeed000AdvancedHooksRunsToCompletion: seed 000's "Advanced Hook Integration" example
// as written, but for where it deploys from (the loopback repository) and its hooks' URLs
// (a local server instead of Slack); its commands (kubectl, pytest) are scripts in the
// agent's command directory. The production phase selects the fleet's tier=production
// clusters; the smoke-tests post-hook, templated with {{name}}, runs once per cluster with
// that cluster's TARGET_URL, and the rollout completes.
func TestSeed000AdvancedHooksRunsToCompletion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	spec := seedExample(t, "000-advanced-hooks.yaml", map[string]string{
		"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX": srv.URL + "/slack",
		"repoURL: https://github.com/example/app":                                       "repoURL: " + env.Git.URL,
		"path: k8s": "path: advanced-hooks/k8s",
	}, map[string]int{"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX": 2})
	dir, log := hookScripts(t, "kubectl", "pytest")
	r := newPhased(t, "advanced-hooks", "stop")
	defer r.agent("agent-advanced-hooks", []string{"SEED_HOOK_LOG=" + log},
		"--hook-allow-private", "--hook-command-dir", dir, "--hook-pass-env", "SEED_HOOK_LOG").Stop(5 * time.Second)
	if _, err := env.Git.Commit("advanced-hooks: v1", map[string]string{
		"advanced-hooks/app/appset.yaml": spec, "advanced-hooks/k8s/cm.yaml": framework.Workload("advanced-hooks", "v1"),
	}); err != nil {
		t.Fatal(err)
	}
	newParent(ctx, t, r.name, "advanced-hooks/app", 0)
	prod := []string{"prod-1", "prod-2"}
	r.waitState("the advanced-hooks example completes", func(st *state.State) bool {
		return st.Rollout.Status == rollout.StatusCompleted && runsVersion(ctx, t, "advanced-hooks", prod, "v1")
	})
	lines := readLines(t, log)
	for _, want := range []string{
		"kubectl_get_nodes_--no-headers_type=pre_url=",
		"pytest_tests/smoke/_type=post_url=https://prod-1.example.com",
		"pytest_tests/smoke/_type=post_url=https://prod-2.example.com",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("no hook run %q; runs: %v", want, lines)
		}
	}
	if len(lines) != 3 {
		t.Errorf("want one infrastructure check and one smoke test per cluster, got %v", lines)
	}
	if got := rec.seen("/slack"); len(got) != 2 {
		t.Errorf("want the start and the success notifications, got %v", got)
	}
	for _, c := range []string{"dev-1", "staging-2"} {
		if _, err := env.App(ctx, c); err == nil {
			t.Errorf("cluster %s is selected by no phase, yet has a child", c)
		}
	}
}

// TestSeed000BasicProgressiveRunsToCompletion: seed 000's "Basic Progressive Rollout" as
// written, but for where it deploys from and to: the loopback repository, the fleet's
// cluster names for the seed's (dev-us-west is dev-1, ...), one namespace per cluster (every
// "cluster" here is the same API server) and child names prefixed (the stack is shared). Its
// soaks (5m, 10m) are ended by a person with promote, as an operator would.
func TestSeed000BasicProgressiveRunsToCompletion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	spec := seedExample(t, "000-basic-progressive.yaml", map[string]string{
		`"dev-us-west", "dev-eu-west"`:            `"dev-1", "dev-2"`,
		`"staging-us-west", "staging-eu-west"`:    `"staging-1", "staging-2"`,
		`"prod-us-west", "prod-eu-west"`:          `"prod-1", "prod-2"`,
		`name: "{{name}}"`:                        `name: "basic-{{name}}"`,
		"repoURL: https://github.com/example/app": "repoURL: " + env.Git.URL,
		"path: manifests":                         "path: basic-progressive/manifests",
		"namespace: default":                      `namespace: "{{name}}"`,
	}, nil)
	r := newPhased(t, "basic-progressive", "stop")
	defer r.agent("agent-basic-progressive", nil).Stop(5 * time.Second)
	if _, err := env.Git.Commit("basic-progressive: v1", map[string]string{
		"basic-progressive/app/appset.yaml": spec, "basic-progressive/manifests/cm.yaml": framework.Workload("basic-progressive", "v1"),
	}); err != nil {
		t.Fatal(err)
	}
	newParent(ctx, t, r.name, "basic-progressive/app", 0)
	var order []string
	promoted := map[string]bool{}
	all := []string{"dev-1", "dev-2", "staging-1", "staging-2", "prod-1", "prod-2"}
	r.waitState("the basic example completes", func(st *state.State) bool {
		for _, ph := range st.Rollout.Phases {
			if ph.Status == state.PhaseSoaking && !promoted[ph.Name] {
				promoted[ph.Name] = true
				r.cli("promote", r.name, ph.Name, "--reason", "seen enough")
			}
		}
		for _, c := range all {
			if !slices.Contains(order, c) && runsVersion(ctx, t, "basic-progressive", []string{c}, "v1") {
				order = append(order, c)
			}
		}
		return st.Rollout.Status == rollout.StatusCompleted && len(order) == len(all)
	})
	for i, c := range order {
		if want := all[i/2*2 : i/2*2+2]; !slices.Contains(want, c) {
			t.Fatalf("clusters reached v1 in order %v, want the phases' order %v", order, all)
		}
	}
}

// runsVersion reports whether every cluster runs version of the named workload.
func runsVersion(ctx context.Context, t *testing.T, name string, clusters []string, version string) bool {
	t.Helper()
	for _, c := range clusters {
		cm, err := env.Kube.CoreV1().ConfigMaps(c).Get(ctx, name, metav1.GetOptions{})
		if err != nil || cm.Data["version"] != version {
			return false
		}
	}
	return true
}
