package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func status(t *testing.T, mux *http.ServeMux, path string) int {
	t.Helper()
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code
}

// TestReadyzWaitsForTheCachesAndTheElection: /readyz is 503 until leader election has
// settled and, on the leader, the caches have synced; /healthz answers all along.
func TestReadyzWaitsForTheCachesAndTheElection(t *testing.T) {
	var synced atomic.Bool
	r := &readiness{election: true, synced: synced.Load}
	mux := http.NewServeMux()
	r.handle(mux)
	if status(t, mux, "/healthz") != 200 || status(t, mux, "/readyz") != 503 {
		t.Fatal("before the election: healthy, not ready")
	}
	r.leading.Store(true)
	if status(t, mux, "/readyz") != 503 {
		t.Fatal("leading with caches not synced: not ready")
	}
	synced.Store(true)
	if status(t, mux, "/readyz") != 200 {
		t.Fatal("leading with caches synced: ready")
	}
	standby := &readiness{election: true, synced: func() bool { return false }}
	standby.leaderSeen.Store(true)
	if standby.why() != "" {
		t.Fatal("a stand-by that knows the leader is ready")
	}
	alone := &readiness{synced: synced.Load}
	if alone.why() != "" {
		t.Fatal("without election: ready once synced")
	}
}

func TestBuildInfo(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(buildInfo())
	if n, err := testutil.GatherAndCount(reg, "cmp_phase_build_info"); err != nil || n != 1 {
		t.Fatalf("cmp_phase_build_info: %d series, %v", n, err)
	}
	mfs, _ := reg.Gather()
	var labels []string
	for _, l := range mfs[0].GetMetric()[0].GetLabel() {
		labels = append(labels, l.GetName())
	}
	if got := strings.Join(labels, ","); got != "goversion,revision,version" {
		t.Fatalf("labels %s", got)
	}
}
