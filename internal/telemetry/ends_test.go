package telemetry

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

var t0 = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

func at(d time.Duration) *time.Time { t := t0.Add(d); return &t }

// threePhases is a rollout started at t0 whose phases dev, stage and prod started at 0,
// 10 and 20 minutes; dev and stage ended 8 and 18 minutes in, their members settling then.
func threePhases() *state.State {
	ph := func(name string, start time.Duration, st state.PhaseStatus) state.PhaseState {
		p := state.PhaseState{Name: name, Status: st, Members: []string{name + "-1"}, StartedAt: at(start)}
		if st.IsTerminal() {
			p.Admitted = []string{name + "-1"}
			p.EndedAt = *at(start + 8*time.Minute)
			p.Clusters = map[string]state.ClusterState{name + "-1": {Status: state.ClusterDone, AdmittedAt: *at(start), SettledAt: p.EndedAt}}
		}
		return p
	}
	return &state.State{Generation: 7, Rollout: &state.Rollout{Revision: "r2", Status: state.RolloutProgressing, StartedAt: t0, Phase: 2,
		Phases: []state.PhaseState{ph("dev", 0, state.PhaseSucceeded), ph("stage", 10*time.Minute, state.PhaseSucceeded), ph("prod", 20*time.Minute, state.PhaseAdmitting)}}}
}

// completed is s with its last phase and the rollout ended 28 minutes in.
func completed(s *state.State) *state.State {
	n := s.Clone()
	r := n.Rollout
	r.Status, r.EndedAt, r.Phase = state.RolloutCompleted, *at(28 * time.Minute), 3
	p := &r.Phases[2]
	p.Status, p.EndedAt, p.Admitted = state.PhaseSucceeded, r.EndedAt, p.Members
	p.Clusters = map[string]state.ClusterState{"prod-1": {Status: state.ClusterDone, AdmittedAt: *at(20 * time.Minute), SettledAt: r.EndedAt}}
	n.Generation++
	return n
}

func histogram(t *testing.T, h *prometheus.HistogramVec, labels ...string) (count uint64, sum float64) {
	t.Helper()
	var m dto.Metric
	if err := h.WithLabelValues(labels...).(prometheus.Histogram).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

// TestARolloutsEndIsObservedOnceFromItsStateTimes: the write that completes a rollout
// observes its duration and its last phase's from the state's times (not the agent's
// clock), once; a later write over the finished state — the same agent's, or a restarted
// agent's, whose metrics start empty — observes nothing again.
func TestARolloutsEndIsObservedOnceFromItsStateTimes(t *testing.T) {
	m := NewAgentMetrics(prometheus.NewRegistry())
	running := threePhases()
	done := completed(running)
	m.Written("web", running, done, time.Time{})
	if c, s := histogram(t, m.rolloutDuration, "web", "Completed"); c != 1 || s != (28*time.Minute).Seconds() {
		t.Fatalf("rollout: %d observed, sum %v; want one of 28 minutes", c, s)
	}
	if c, s := histogram(t, m.phaseDuration, "web", "Succeeded"); c != 1 || s != (8*time.Minute).Seconds() {
		t.Fatalf("phases: %d observed, sum %v; want prod's 8 minutes alone (dev and stage ended on earlier writes)", c, s)
	}
	later := done.Clone()
	later.Generation++ // e.g. a status-only write after the rollout ended
	m.Written("web", done, later, time.Time{})
	restarted := NewAgentMetrics(prometheus.NewRegistry())
	restarted.Written("web", done, later, time.Time{})
	if c, _ := histogram(t, m.rolloutDuration, "web", "Completed"); c != 1 {
		t.Fatalf("the end observed %d times", c)
	}
	if n := testutil.CollectAndCount(restarted.rolloutDuration) + testutil.CollectAndCount(restarted.phaseDuration); n != 0 {
		t.Fatalf("a restarted agent re-observed a finished rollout: %d series", n)
	}
}

// TestEachEndOfARolloutIsObservedWithItsResult: a stopped rollout rolled back ends twice
// (Stopped, then RolledBack, each from its start); a rollout a newer revision replaced
// while it ran ends Abandoned, when the new one started.
func TestEachEndOfARolloutIsObservedWithItsResult(t *testing.T) {
	m := NewAgentMetrics(prometheus.NewRegistry())
	running := threePhases()
	stopped := running.Clone()
	stopped.Rollout.Status, stopped.Rollout.EndedAt = state.RolloutStopped, *at(25 * time.Minute)
	stopped.Rollout.Phases[2].Status, stopped.Rollout.Phases[2].EndedAt = state.PhaseFailed, *at(25 * time.Minute)
	m.Written("web", running, stopped, time.Time{})
	back := stopped.Clone()
	back.Rollout.Status, back.Rollout.EndedAt = state.RolloutRolledBack, *at(40 * time.Minute)
	m.Written("web", stopped, back, time.Time{})
	for _, want := range []struct {
		h      *prometheus.HistogramVec
		result string
		took   time.Duration
	}{{m.rolloutDuration, "Stopped", 25 * time.Minute}, {m.rolloutDuration, "RolledBack", 40 * time.Minute}, {m.phaseDuration, "Failed", 5 * time.Minute}} {
		if c, s := histogram(t, want.h, "web", want.result); c != 1 || s != want.took.Seconds() {
			t.Errorf("%s: %d observed, sum %v; want one of %s", want.result, c, s, want.took)
		}
	}

	newer := &state.State{Generation: 9, Rollout: &state.Rollout{Revision: "r3", Status: state.RolloutProgressing, StartedAt: t0.Add(30 * time.Minute),
		Phases: []state.PhaseState{{Name: "dev"}}}}
	m.Written("web", running, newer, time.Time{})
	if c, s := histogram(t, m.rolloutDuration, "web", "Abandoned"); c != 1 || s != (30*time.Minute).Seconds() {
		t.Fatalf("abandoned: %d observed, sum %v", c, s)
	}
	m.Written("web", stopped, newer, time.Time{}) // a stopped rollout ended already: replacing it is no new end
	if c, _ := histogram(t, m.rolloutDuration, "web", "Abandoned"); c != 1 {
		t.Fatalf("abandoned observed %d times", c)
	}
}

// TestTriggerLatencyRunsFromTheLastSettleToTheNextPhasesFirstAdmission: the write that
// admits a phase's first child names when its previous phase's last member settled; the
// first phase, and a phase admitting more later, name nothing.
func TestTriggerLatencyRunsFromTheLastSettleToTheNextPhasesFirstAdmission(t *testing.T) {
	s := threePhases()
	before := s.Clone()
	before.Rollout.Phases[2].Status = state.PhasePending
	s.Rollout.Phases[2].Admitted = []string{"prod-1"}
	s.Rollout.Phases[1].Clusters["stage-0"] = state.ClusterState{Status: state.ClusterDone, SettledAt: *at(12 * time.Minute)}
	if got, ok := Triggered(before, s); !ok || !got.Equal(*at(18 * time.Minute)) {
		t.Fatalf("triggered %v %s, want stage's last settle at 18 minutes", ok, got)
	}
	if _, ok := Triggered(s, s); ok {
		t.Fatal("a phase admitted already triggers again")
	}
	first := &state.State{Rollout: &state.Rollout{Revision: "r2", Status: state.RolloutProgressing, StartedAt: t0,
		Phases: []state.PhaseState{{Name: "dev", Admitted: []string{"dev-1"}}}}}
	if _, ok := Triggered(nil, first); ok {
		t.Fatal("the first phase has no previous one to be triggered by")
	}
}

// TestPhaseChildrenFollowTheCurrentPhase: cmp_phase_phase_children counts the current
// phase's children by state (its members not admitted as Pending), and the series of a
// phase passed, or of a state no child is in any more, go.
func TestPhaseChildrenFollowTheCurrentPhase(t *testing.T) {
	m := NewAgentMetrics(prometheus.NewRegistry())
	s := threePhases()
	s.Rollout.Phase = 1
	s.Rollout.Phases[1].Members = []string{"stage-1", "stage-2", "stage-3"}
	s.Rollout.Phases[1].Status = state.PhaseAdmitting
	s.Rollout.Phases[1].Clusters["stage-2"] = state.ClusterState{Status: state.ClusterWaiting}
	m.Observe("web", s, "sync")
	for st, want := range map[string]float64{"Done": 1, "Waiting": 1, "Pending": 1} {
		if v := testutil.ToFloat64(m.phaseChildren.WithLabelValues("web", "stage", st)); v != want {
			t.Errorf("stage %s = %v, want %v", st, v, want)
		}
	}
	s.Rollout.Phase = 2
	m.Observe("web", s, "sync")
	if n := testutil.CollectAndCount(m.phaseChildren); n != 1 || testutil.ToFloat64(m.phaseChildren.WithLabelValues("web", "prod", "Pending")) != 1 {
		t.Fatalf("%d series after the phase moved on, want prod's Pending alone", n)
	}
	s.Rollout.Status = state.RolloutStopped
	m.Observe("web", s, "")
	if n := testutil.CollectAndCount(m.phaseChildren); n != 1 {
		t.Fatalf("%d series after the rollout stopped, want the phase it stopped in", n)
	}
	m.Observe("web", completed(s), "")
	if n := testutil.CollectAndCount(m.phaseChildren); n != 0 {
		t.Fatalf("%d series after the rollout completed", n)
	}
}
