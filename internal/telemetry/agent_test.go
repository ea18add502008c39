package telemetry

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

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
