package main

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cmp-phase/cmp-phase/internal/telemetry"
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
	mux := telemetry.Mux(prometheus.NewRegistry(), r.why, false)
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
