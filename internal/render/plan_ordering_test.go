package render

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// planOf renders the plan ConfigMap of the seed 000 coexistence example with edit applied.
func planOf(t *testing.T, edit func(string) string) (*spec.Spec, *corev1.ConfigMap) {
	t.Helper()
	text, err := os.ReadFile("../spec/testdata/compose/000-coexist.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return planFrom(t, "coexist.yaml", edit(string(text)))
}

// manifest is what plan.Decode reads of cm.
func manifest(cm *corev1.ConfigMap) plan.Manifest {
	return plan.Manifest{Namespace: cm.Namespace, Name: cm.Name, Labels: cm.Labels, Annotations: cm.Annotations, Data: cm.Data}
}

// planFrom parses a spec and renders its plan ConfigMap, as the parent's render writes it.
func planFrom(t *testing.T, file, yaml string) (*spec.Spec, *corev1.ConfigMap) {
	t.Helper()
	s, err := spec.Parse(file, []byte(yaml), targets.NewCache(16))
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Spec: s, Env: Env{StateNamespace: "argocd", AppName: "parent"}}
	body, id, err := revisionOf(in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := planDoc(in, body, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := json.Unmarshal(b, &cm); err != nil {
		t.Fatal(err)
	}
	return s, &cm
}

// TestAPlanCarriesOrderAndSpread: the agent reads a phase's order and spread as parsed,
// compiled; a phase without them says nothing, as plans did before; a plan whose
// expression does not compile is refused, never read as name order.
func TestAPlanCarriesOrderAndSpread(t *testing.T) {
	s, cm := planOf(t, func(y string) string {
		return strings.Replace(y, "      - name: canary\n", "      - name: canary\n        order: labels.rank\n        spread: labels.region\n", 1)
	})
	p, err := plan.Decode(manifest(cm), targets.NewCache(16))
	if err != nil {
		t.Fatal(err)
	}
	if o := p.Phases[0].Ordering; o.Order != s.Phases[0].Ordering.Order || o.Spread != "labels.region" || !o.Compiled() {
		t.Fatalf("%+v", o)
	}
	if !p.Phases[1].Ordering.IsZero() || strings.Contains(cm.Data[contract.PlanPhasesKey], `"order":""`) {
		t.Fatalf("a phase without order says nothing: %s", cm.Data[contract.PlanPhasesKey])
	}
	cm.Data[contract.PlanPhasesKey] = strings.Replace(cm.Data[contract.PlanPhasesKey], `"order":"labels.rank"`, `"order":"labels.rank +"`, 1)
	if _, err := plan.Decode(manifest(cm), targets.NewCache(16)); err == nil || !strings.Contains(err.Error(), "phase canary-step1: order:") {
		t.Fatalf("a bad order in a plan: %v", err)
	}
}
