package render_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestThePlanCarriesTheDeletionOrder: the agent reads the order children are removed in
// from the plan: as spec.strategy says (seed 003's Reverse; without one AllAtOnce, which
// internal/spec's deletion test covers: seed 001's example, which names none, no longer
// renders), and Reverse for phaseDeployment, which has no such field.
func TestThePlanCarriesTheDeletionOrder(t *testing.T) {
	cases := map[string]string{
		"seed-000-basic-progressive": spec.DeletionReverse,
		"seed-003-rolling-sync":      spec.DeletionReverse,
	}
	for dir, want := range cases {
		t.Run(dir, func(t *testing.T) {
			cm := goldenPlan(t, dir)
			p, err := plan.Decode(cm, targets.NewCache(8))
			if err != nil {
				t.Fatal(err)
			}
			if p.DeletionOrder != want {
				t.Errorf("deletionOrder %q, want %q", p.DeletionOrder, want)
			}
			cm.Data[contract.PlanPhasesKey] = strings.Replace(cm.Data[contract.PlanPhasesKey], `"deletionOrder":"`, `"deletionOrder":"Sideways`, 1)
			if _, err := plan.Decode(cm, targets.NewCache(8)); err == nil || !strings.Contains(err.Error(), "deletionOrder") {
				t.Errorf("an unknown order must be refused, got %v", err)
			}
		})
	}
}

// goldenPlan is what plan.Decode reads of the plan ConfigMap of a golden render
// (testdata/<dir>/expected.yaml).
func goldenPlan(t *testing.T, dir string) plan.Manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, "expected.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, `"`+contract.LabelPlan+`":"true"`) {
			var cm corev1.ConfigMap
			if err := json.Unmarshal([]byte(line), &cm); err != nil {
				t.Fatal(err)
			}
			return plan.Manifest{Namespace: cm.Namespace, Name: cm.Name, Labels: cm.Labels, Annotations: cm.Annotations, Data: cm.Data}
		}
	}
	t.Fatal("no plan in the golden render")
	return plan.Manifest{}
}
