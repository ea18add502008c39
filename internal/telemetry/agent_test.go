package telemetry

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/cmp-phase/cmp-phase/internal/agent/watchlag"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/status"
)

// TestWhatARolloutWaitsForIsAMetric: cmp_phase_waiting says what the parent's waiting-for
// annotation says (one series, moved when it changes, gone when the rollout ends), and
// cmp_phase_phase_deadline_timestamp_seconds the current phase's deadline (0 after it).
func TestWhatARolloutWaitsForIsAMetric(t *testing.T) {
	m := NewAgentMetrics(prometheus.NewRegistry())
	deadline := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	st := &state.State{Rollout: &state.Rollout{Revision: "r2", Status: state.RolloutProgressing, Phases: []state.PhaseState{{
		Name: "dev", Status: state.PhaseSoaking, Members: []string{"a"}, Admitted: []string{"a"}, DeadlineAt: &deadline,
		Clusters: map[string]state.ClusterState{"a": {Status: state.ClusterDone}},
	}}}}
	m.Observe("web", st, status.Parent("web", st)[contract.ParentWaitingFor])
	if v := testutil.ToFloat64(m.waiting.WithLabelValues("web", "soak")); v != 1 {
		t.Fatalf("waiting for soak = %v", v)
	}
	if v := testutil.ToFloat64(m.deadline.WithLabelValues("web")); v != float64(deadline.Unix()) {
		t.Fatalf("deadline = %v", v)
	}
	st.Rollout.Status = state.RolloutCompleted
	m.Observe("web", st, status.Parent("web", st)[contract.ParentWaitingFor])
	if n := testutil.CollectAndCount(m.waiting); n != 0 {
		t.Fatalf("%d waiting series after the rollout ended", n)
	}
	if v := testutil.ToFloat64(m.deadline.WithLabelValues("web")); v != 0 {
		t.Fatalf("deadline after the rollout ended = %v", v)
	}
}

// TestAPassReadingANewChangeCountsItsWatchLag: cmp_phase_watch_lag_seconds observes the
// lag of the first pass that read a change, not of later passes over the same one.
func TestAPassReadingANewChangeCountsItsWatchLag(t *testing.T) {
	m := NewAgentMetrics(prometheus.NewRegistry())
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	in := watchlag.Input{Name: "web-dev-1", ResourceVersion: "42", Changed: t0}
	if lag, fresh := m.InputsRead("web", in, t0.Add(300*time.Millisecond)); !fresh || lag != 300*time.Millisecond {
		t.Fatalf("first read: %s %v", lag, fresh)
	}
	if _, fresh := m.InputsRead("web", in, t0.Add(5*time.Second)); fresh {
		t.Fatal("a second pass over the same change is fresh")
	}
	if n := testutil.CollectAndCount(m.watchLag); n != 1 {
		t.Fatalf("%d series", n)
	}
	h := &dto.Metric{}
	if err := m.watchLag.WithLabelValues("web").(prometheus.Histogram).Write(h); err != nil {
		t.Fatal(err)
	}
	if c, s := h.GetHistogram().GetSampleCount(), h.GetHistogram().GetSampleSum(); c != 1 || s < 0.29 || s > 0.31 {
		t.Fatalf("observed %d, sum %v: want one pass at 0.3 s", c, s)
	}
}
