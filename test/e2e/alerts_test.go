//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestTheAlertRulesCheckAndPassTheirTests: manifests/observability's rules pass Debian's
// promtool (installed by hack/build-tools.sh with Prometheus): check rules, and the unit
// tests of rules_test.yaml (a stopped rollout fires, a completed one does not, retries,
// render errors, a missing agent); the PrometheusRule carries the very same groups.
func TestTheAlertRulesCheckAndPassTheirTests(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(framework.RepoRoot(), "manifests", "observability")
	for _, args := range [][]string{{"check", "rules", "rules.yaml"}, {"test", "rules", "rules_test.yaml"}} {
		cmd := exec.Command("promtool", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("promtool %v: %v\n%s", args, err, out)
		}
	}
	read := func(name string, into any) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, into); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var rules map[string]any
	var pr struct{ Spec map[string]any }
	read("rules.yaml", &rules)
	read("prometheusrule.yaml", &pr)
	if !reflect.DeepEqual(rules["groups"], pr.Spec["groups"]) {
		t.Fatal("prometheusrule.yaml's groups differ from rules.yaml's (fix: copy rules.yaml's groups into its spec)")
	}
}
