package telemetry

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestBuildInfo(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(BuildInfo())
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

func TestMuxServesMetricsHealthAndReadiness(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(BuildInfo())
	why := "caches not synced yet"
	mux := Mux(reg, func() string { return why }, false)
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("/metrics"); code != 200 || !strings.Contains(body, "cmp_phase_build_info") {
		t.Fatalf("/metrics: %d", code)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Fatalf("/healthz: %d", code)
	}
	if code, body := get("/readyz"); code != 503 || !strings.Contains(body, why) {
		t.Fatalf("/readyz not ready: %d %q", code, body)
	}
	why = ""
	if code, _ := get("/readyz"); code != 200 {
		t.Fatalf("/readyz ready: %d", code)
	}
	if code, _ := get("/debug/pprof/"); code != 404 {
		t.Fatalf("pprof only when profiling: %d", code)
	}
}
