package cmpserver

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// TestTheSidecarCountsItsRenders: renders over the real socket are observed by result, the
// second load of the same spec is a cache hit, and a refused render is counted by its code.
func TestTheSidecarCountsItsRenders(t *testing.T) {
	root := repo(t)
	reg := prometheus.NewRegistry()
	client, _ := startServerWith(t, deployedStore(t, root), Options{StaleWait: 200 * time.Millisecond, Metrics: reg})
	for range 2 {
		if _, err := generate(context.Background(), client, root, "apps/demo", []string{contract.PluginEnvPhaseGen + "=5"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := generate(context.Background(), client, root, "apps/demo", []string{contract.PluginEnvPhaseGen + "=99"}); err == nil {
		t.Fatal("a render of a state the store has not reached must fail")
	}
	for _, c := range []struct {
		metric, labels string
		want           int
	}{
		{"cmp_phase_render_seconds", `result="ok"`, 2},
		{"cmp_phase_render_seconds", `result="Unavailable"`, 1},
		{"cmp_phase_render_received_seconds", "", 3},
		{"cmp_phase_spec_cache_total", `result="hit"`, 2},
		{"cmp_phase_spec_cache_total", `result="miss"`, 1},
	} {
		if got := count(t, reg, c.metric, c.labels); got != c.want {
			t.Errorf("%s{%s} = %d, want %d", c.metric, c.labels, got, c.want)
		}
	}
	if got := count(t, reg, "cmp_phase_render_state_seconds", ""); got < 3 { // a stale state is read again until it gives up
		t.Errorf("cmp_phase_render_state_seconds counted %d state reads, want one per render attempt (3 or more)", got)
	}
}

// count is a counter's value or a histogram's sample count, for the series with labels.
func count(t *testing.T, reg *prometheus.Registry, name, labels string) int {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			ls := ""
			for _, l := range m.GetLabel() {
				ls += l.GetName() + `="` + l.GetValue() + `"`
			}
			if ls != labels {
				continue
			}
			if h := m.GetHistogram(); h != nil {
				return int(h.GetSampleCount())
			}
			return int(m.GetCounter().GetValue())
		}
	}
	return 0
}
