package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// linesStarting are the lines of out that start with prefix.
func linesStarting(out, prefix string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			ls = append(ls, l)
		}
	}
	return ls
}

// sameCells says whether two table lines have the same cells (the column widths may
// differ: a header can be a column's widest cell).
func sameCells(a, b string) bool { return slices.Equal(strings.Fields(a), strings.Fields(b)) }

// TestNoHeadersLeavesOutEveryTablesColumnHeaders: --no-headers on list (also -o wide),
// status and plan leaves out the column headers and keeps every row.
func TestNoHeadersLeavesOutEveryTablesColumnHeaders(t *testing.T) {
	kc := fake.NewClientset(stateCM(t, "argocd", "web", state.RolloutProgressing, 1, []string{"a"}, []string{"b"}),
		stateCM(t, "argocd", "api", state.RolloutCompleted, 0, []string{"a"}))
	for _, c := range []struct {
		args    []string
		header  string
		row     string
		runArgs func(...string) (string, string, int)
	}{
		{[]string{"list"}, "ROLLOUT", "web", nil},
		{[]string{"list", "-o", "wide"}, "ROLLOUT", "web", nil},
		{[]string{"status", "web"}, "PHASE", "staging", nil},
		{[]string{"status", "web", "-o", "wide"}, "PHASE", "staging", nil},
		{[]string{"plan", "../../internal/render/testdata/spec-v2.yaml", "--inventory-file", "../../internal/render/testdata/inventory.json"}, "STEP", "1 ", nil},
	} {
		with, _, code := runFake(t, kc, "argocd", c.args...)
		if code != 0 || len(linesStarting(with, c.header)) != 1 || len(linesStarting(with, c.row)) == 0 {
			t.Fatalf("%v: exit %d, want one %s line and rows:\n%s", c.args, code, c.header, with)
		}
		without, _, code := runFake(t, kc, "argocd", append(slices.Clone(c.args), "--no-headers")...)
		if code != 0 || len(linesStarting(without, c.header)) != 0 || !slices.EqualFunc(linesStarting(without, c.row), linesStarting(with, c.row), sameCells) {
			t.Fatalf("%v --no-headers: exit %d, want the rows without the %s line:\n%s", c.args, code, c.header, without)
		}
	}
	if out, _, code := runFake(t, kc, "argocd", "status", "web", "-o", "json", "--no-headers"); code != 0 || !strings.HasPrefix(out, "{") {
		t.Fatalf("--no-headers with -o json is ignored, as kubectl does: %d %q", code, out)
	}
}

// TestStatusWideAddsTheTimes: status -o wide adds STARTED and ENDED before the last column
// (each phase's start, "-" when not yet ended), and cuts no line at 100 columns.
func TestStatusWideAddsTheTimes(t *testing.T) {
	cm := stateCM(t, "argocd", "web", state.RolloutProgressing, 0, []string{"a"})
	st, err := state.FromConfigMap(cm)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	st.Rollout.Phases[0].StartedAt = &started
	st.Rollout.Phases[0].Clusters = map[string]state.ClusterState{"a": {Status: state.ClusterWaiting, Reason: strings.Repeat("r", 120), AdmittedAt: started}}
	if err := state.ToConfigMap(st, cm); err != nil {
		t.Fatal(err)
	}
	kc := fake.NewClientset(cm)
	narrow, _, _ := runFake(t, kc, "argocd", "status", "web")
	wide, errOut, code := runFake(t, kc, "argocd", "status", "web", "-o", "wide")
	head := linesStarting(wide, "PHASE")
	if code != 0 || len(head) != 1 || !strings.Contains(head[0], "STARTED               ENDED  GATE") || len(linesStarting(wide, "dev ")) != 1 ||
		!strings.Contains(linesStarting(wide, "dev ")[0], "2026-11-22T03:00:00Z  -") {
		t.Fatalf("-o wide: %d %q\n%s", code, errOut, wide)
	}
	if strings.Contains(narrow, "STARTED") || !strings.Contains(narrow, "…") || strings.Contains(wide, "…") || !strings.Contains(wide, strings.Repeat("r", 120)) {
		t.Fatalf("the narrow table cuts at 100 columns, the wide one does not:\n%s\n%s", narrow, wide)
	}
}
