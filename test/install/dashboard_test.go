package install

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// rolloutLabelled are the metrics the dashboard reads that carry a rollout label: their
// queries follow the $rollout variable.
var rolloutLabelled = []string{"cmp_phase_rollout_status", "cmp_phase_rollout_phase", "cmp_phase_clusters", "cmp_phase_state_writes_total",
	"cmp_phase_state_conflicts_total", "cmp_phase_rerender_seconds", "cmp_phase_decide_seconds", "cmp_phase_sync_retries_total", "cmp_phase_waiting",
	"cmp_phase_rollout_duration_seconds", "cmp_phase_phase_duration_seconds", "cmp_phase_trigger_latency_seconds", "cmp_phase_syncs_total",
	"cmp_phase_refreshes_total", "cmp_phase_phase_children"}

// issue52Metrics are the metrics issue 52 asks a panel of.
var issue52Metrics = []string{"cmp_phase_rollout_duration_seconds", "cmp_phase_phase_duration_seconds", "cmp_phase_trigger_latency_seconds",
	"cmp_phase_syncs_total", "cmp_phase_refreshes_total", "cmp_phase_phase_children"}

// TestTheDashboardIsScopedAndLabelled: every panel of manifests/observability/dashboard.json
// has a unit; the dashboard has namespace and rollout variables; every series a query reads
// is cmp-phase's (job=~".*cmp-phase.*": the PodMonitor's job argocd/cmp-phase or a job of
// your own so named — Argo CD's controllers export workqueue_* and leader_election_* under
// the same names), in the chosen namespaces, and for the chosen rollouts when the metric
// has a rollout label; each of issue 52's metrics has a panel. The e2e
// TestTheDashboardAndTheStoppedAlertOnARealRun proves each query returns a series.
func TestTheDashboardIsScopedAndLabelled(t *testing.T) {
	var d struct {
		Templating struct{ List []struct{ Name, Type string } }
		Panels     []struct {
			Title       string
			FieldConfig struct{ Defaults struct{ Unit string } }
			Targets     []struct{ Expr string }
		}
	}
	if err := json.Unmarshal([]byte(read(t, "manifests/observability/dashboard.json")), &d); err != nil {
		t.Fatal(err)
	}
	var vars []string
	for _, v := range d.Templating.List {
		vars = append(vars, v.Name)
	}
	for _, want := range []string{"datasource", "namespace", "rollout"} {
		if !slices.Contains(vars, want) {
			t.Errorf("the dashboard has no %s variable (it has %v)", want, vars)
		}
	}
	selector := regexp.MustCompile(`\b((?:cmp_phase|workqueue|leader_election)_[a-z_]+)(\{[^}]*\})?`)
	read := map[string]bool{}
	for _, p := range d.Panels {
		if p.FieldConfig.Defaults.Unit == "" {
			t.Errorf("panel %q has no unit (fix: fieldConfig.defaults.unit)", p.Title)
		}
		for _, tg := range p.Targets {
			for _, m := range selector.FindAllStringSubmatch(tg.Expr, -1) {
				name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m[1], "_bucket"), "_count"), "_sum")
				read[name] = true
				want := []string{`job=~".*cmp-phase.*"`, `namespace=~"$namespace"`}
				if slices.Contains(rolloutLabelled, name) {
					want = append(want, `rollout=~"$rollout"`)
				}
				for _, w := range want {
					if !strings.Contains(m[2], w) {
						t.Errorf("panel %q reads %s without %s: %s", p.Title, m[1], w, tg.Expr)
					}
				}
			}
		}
	}
	for _, m := range issue52Metrics {
		if !read[m] {
			t.Errorf("no panel reads %s", m)
		}
	}
}
