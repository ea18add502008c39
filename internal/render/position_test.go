package render

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// positionSpec is a list of two clusters whose template hands the rollout position to the
// child's Helm parameters, in fasttemplate or in Go templates.
func positionSpec(t *testing.T, goTemplate bool, version string) *spec.Spec {
	t.Helper()
	params := "phase={{cmpPhase.phase}} index={{cmpPhase.phaseIndex}} count={{cmpPhase.phaseCount}} rank={{cmpPhase.rank}}"
	name, opts := "{{name}}", ""
	if goTemplate {
		params = "phase={{.cmpPhase.phase}} index={{.cmpPhase.phaseIndex}} count={{.cmpPhase.phaseCount}} rank={{.cmpPhase.rank}}"
		name, opts = "{{.name}}", "  goTemplate: true\n  goTemplateOptions: [\"missingkey=error\"]\n"
	}
	doc := `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: pos
spec:
` + opts + `  generators:
  - list:
      elements:
      - {name: a, url: "https://a"}
      - {name: b, url: "https://b"}
    deploymentStrategy:
      type: phaseDeployment
      phases:
      - name: first
        targets: [{clusters: [a]}]
      - name: second
        targets: [{clusters: [b]}]
  template:
    metadata:
      name: '` + name + `'
    spec:
      project: default
      source:
        repoURL: https://example.com/repo.git
        targetRevision: ` + version + `
        path: app
        helm:
          parameters:
          - {name: position, value: '` + params + `'}
      destination: {server: https://kubernetes.default.svc, namespace: app}
`
	s, err := spec.Parse("pos.yaml", []byte(doc), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// renderPos renders s over st and returns each child's document by name.
func renderPos(t *testing.T, s *spec.Spec, st *state.State) map[string]string {
	t.Helper()
	docs, err := New(4).Render(Input{Spec: s, Inventory: &inventory.Inventory{}, State: st, Env: Env{StateNamespace: contract.DefaultNamespace, PhaseGen: st.Generation}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range docs[1:] {
		var app struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		if err := json.Unmarshal(d, &app); err != nil {
			t.Fatal(err)
		}
		out[app.Metadata.Name] = string(d)
	}
	return out
}

// TestAKeptChildRendersTheSameAcrossANewRollout: the rollout position reaches a child as
// template parameters (fasttemplate and Go templates) and as the cmp-phase.io/position
// annotation. v2's rollout placed a in first (1 of 2) and b in second; when v3 starts and
// admits only a, b — still on v2 — renders byte for byte as before (its position is its
// rollout's, not the new one's), and a renders v3's position.
func TestAKeptChildRendersTheSameAcrossANewRollout(t *testing.T) {
	for _, goTemplate := range []bool{false, true} {
		v2, v3 := positionSpec(t, goTemplate, "v2"), positionSpec(t, goTemplate, "v3")
		_, body2, id2, err := v2.Revision()
		if err != nil {
			t.Fatal(err)
		}
		_, body3, id3, err := v3.Revision()
		if err != nil {
			t.Fatal(err)
		}
		st := &state.State{Schema: state.Schema, Generation: 3, Deployed: id2, Children: []string{"a", "b"},
			Revisions: map[string]json.RawMessage{id2: body2},
			Rollout: &state.Rollout{Revision: id2, Status: state.RolloutCompleted, StartedAt: time.Unix(0, 0), Phases: []state.PhaseState{
				{Name: "first", Admitted: []string{"a"}}, {Name: "second", Admitted: []string{"b"}},
			}}}
		before := renderPos(t, v2, st)
		for child, want := range map[string]string{
			"a": `phase=first index=1 count=2 rank=1`, "b": `phase=second index=2 count=2 rank=1`,
		} {
			if !strings.Contains(before[child], want) || !strings.Contains(before[child], `"cmp-phase.io/position":"`+strings.ReplaceAll(want, " ", ",")) {
				t.Fatalf("goTemplate %v: %s lacks %q:\n%s", goTemplate, child, want, before[child])
			}
		}
		st.KeepPlacements() // v3 starts, as the engine starts it
		st.Rollout = &state.Rollout{Revision: id3, Status: state.RolloutProgressing, StartedAt: time.Unix(60, 0), Phases: []state.PhaseState{
			{Name: "first", Admitted: []string{"a"}}, {Name: "second"},
		}}
		st.Revisions[id3], st.Generation = body3, 4
		after := renderPos(t, v3, st)
		if after["b"] != before["b"] {
			t.Fatalf("goTemplate %v: b, not admitted by v3, changed:\n%s\n%s", goTemplate, before["b"], after["b"])
		}
		if !strings.Contains(after["a"], "targetRevision\":\"v3") || !strings.Contains(after["a"], "phase=first index=1 count=2 rank=1") {
			t.Fatalf("goTemplate %v: a on v3: %s", goTemplate, after["a"])
		}
	}
}

// TestAChildWithoutAKnownPositionRendersEmptyOnes: a state that knows no position (a child
// deployed before positions were kept) renders "" and 0s, and an empty annotation; a Go
// template with missingkey=error still renders.
func TestAChildWithoutAKnownPositionRendersEmptyOnes(t *testing.T) {
	for _, goTemplate := range []bool{false, true} {
		s := positionSpec(t, goTemplate, "v1")
		_, body, id, err := s.Revision()
		if err != nil {
			t.Fatal(err)
		}
		st := &state.State{Schema: state.Schema, Generation: 1, Deployed: id, Children: []string{"a"}, Revisions: map[string]json.RawMessage{id: body}}
		got := renderPos(t, s, st)["a"]
		if !strings.Contains(got, "phase= index=0 count=0 rank=0") || !strings.Contains(got, `"cmp-phase.io/position":""`) {
			t.Fatalf("goTemplate %v: %s", goTemplate, got)
		}
	}
}
