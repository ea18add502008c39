package telemetry

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cmp-phase/cmp-phase/internal/agent/watchlag"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// AgentMetrics are the agent's Prometheus metrics of its rollouts (served by cmd/agent on
// --metrics-addr). The agent observes the exported ones where it does the work; the rest
// are set from a rollout's state (Observe) or a hook's run (Hook).
type AgentMetrics struct {
	// Writes counts state ConfigMap writes, Conflicts those that met a concurrent change
	// (by rollout).
	Writes, Conflicts *prometheus.CounterVec
	// Rerender: from asking a parent to re-render to seeing its render of the new state.
	Rerender *prometheus.HistogramVec
	// Decide: one decision of a rollout (render view and engine step, no I/O).
	Decide *prometheus.HistogramVec
	// Pass: where a rollout's pass goes, by step (read, state, act).
	Pass *prometheus.HistogramVec
	// Retries counts syncs started again after a transient failure.
	Retries *prometheus.CounterVec
	// Syncs counts the child syncs the agent started (moves, syncs of children without an
	// automated sync, retries); Refreshes the refreshes it asked for, by target (parent,
	// child).
	Syncs, Refreshes *prometheus.CounterVec
	// Trigger: from the pass that saw a phase's last member settle to the pass admitting
	// the next phase's first children asking for the re-render and moving them.
	Trigger *prometheus.HistogramVec
	// watchLag: from the newest change a pass read to its read (InputsRead); read, the
	// changes its passes already counted.
	watchLag *prometheus.HistogramVec
	read     watchlag.Tracker

	phase, status, clusters, waiting, deadline, phaseChildren *prometheus.GaugeVec
	hooks, rolloutDuration, phaseDuration                     *prometheus.HistogramVec
	mu                                                        sync.Mutex                    // Observe runs on every worker
	rolloutSts                                                map[string]string             // rollout → the status label last set
	waitingFor                                                map[string]string             // rollout → the waiting label last set
	children                                                  map[string]map[[2]string]bool // rollout → the phase_children phase and state labels last set
}

// The targets of cmp_phase_refreshes_total: the agent refreshes parents (its poll, and a
// hard refresh when a re-render did not arrive); a child is refreshed by Argo CD when the
// agent moves it, so the agent asks no child refresh today (the series stays at 0).
const (
	TargetParent = "parent"
	TargetChild  = "child"
)

// durationBuckets span a phase or a rollout: 5 s to ≈ 1.5 days.
var durationBuckets = prometheus.ExponentialBuckets(5, 3, 10)

// NewAgentMetrics makes the agent's metrics, registered with reg (nil: not).
func NewAgentMetrics(reg prometheus.Registerer) *AgentMetrics {
	m := &AgentMetrics{
		phase: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cmp_phase_rollout_phase",
			Help: "The current phase of a rollout, 1-based; 0 when no rollout is in progress."}, []string{"rollout"}),
		status: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cmp_phase_rollout_status",
			Help: "1 for the status a rollout is in (Idle, Progressing, Completed, Stopped, RollingBack, RolledBack, Abandoned)."}, []string{"rollout", "status"}),
		clusters: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cmp_phase_clusters",
			Help: "Admitted children of the current rollout by status."}, []string{"rollout", "status"}),
		hooks: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cmp_phase_hook_duration_seconds",
			Help: "Hook and check runs, by kind and outcome.", Buckets: prometheus.ExponentialBuckets(0.05, 4, 8)}, []string{"kind", "outcome"}),
		Writes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cmp_phase_state_writes_total",
			Help: "State ConfigMap writes."}, []string{"rollout"}),
		Conflicts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cmp_phase_state_conflicts_total",
			Help: "State writes that met a concurrent change and decided again."}, []string{"rollout"}),
		Rerender: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cmp_phase_rerender_seconds",
			Help: "From asking the parent to re-render to seeing its render of the new state.", Buckets: prometheus.ExponentialBuckets(0.25, 2, 10)}, []string{"rollout"}),
		Decide: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cmp_phase_decide_seconds",
			Help: "One decision of a rollout over its observed children: the render view and the engine's step (in memory, no I/O).", Buckets: prometheus.ExponentialBuckets(0.001, 2, 12)}, []string{"rollout"}),
		Pass: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cmp_phase_pass_seconds",
			Help:    "Where a rollout's pass goes, by step: read (plan, parent, children from the caches), state (read, decide and write the state ConfigMap), act (re-render, moves, syncs, deletes).",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}, []string{"rollout", "step"}),
		Retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cmp_phase_sync_retries_total",
			Help: "Syncs of admitted children the agent started again after a transient failure (connection refused, EOF, 5xx, ...)."}, []string{"rollout"}),
		watchLag: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cmp_phase_watch_lag_seconds",
			Help:    "From the newest change of a rollout's Applications a pass read (its newest status timestamp: Argo CD's are whole seconds, so up to 1 s more) to the pass reading it from the cache; only the first pass to read a change later than any the rollout's passes read (the agent's own writes carry no new timestamp).",
			Buckets: prometheus.ExponentialBuckets(0.125, 2, 10)}, []string{"rollout"}),
		waiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cmp_phase_waiting",
			Help: "1 for what a progressing rollout waits for (approval, window, soak, check, person, sync), as its parent's cmp-phase.io/waiting-for says; no series when it waits for nothing."}, []string{"rollout", "for"}),
		deadline: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cmp_phase_phase_deadline_timestamp_seconds",
			Help: "When the current phase's progressDeadline ends (Unix seconds); 0 when it has none or no rollout progresses."}, []string{"rollout"}),
		rolloutDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cmp_phase_rollout_duration_seconds",
			Help:    "From a rollout's start to its end (Completed, Stopped, RolledBack, Abandoned), from the state's times; observed once per end, by the agent that wrote it.",
			Buckets: durationBuckets}, []string{"rollout", "result"}),
		phaseDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cmp_phase_phase_duration_seconds",
			Help:    "From a phase's start to its end (Succeeded, Failed, Errored, RolledBack), from the state's times; observed once per end, by the agent that wrote it.",
			Buckets: durationBuckets}, []string{"rollout", "result"}),
		Trigger: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cmp_phase_trigger_latency_seconds",
			Help:    "From the pass that saw a phase's last member settle to the pass admitting the next phase's first children asking for the re-render and moving them (a soak or a gate between them counts).",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 14)}, []string{"rollout"}),
		Syncs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cmp_phase_syncs_total",
			Help: "Child syncs the agent started: with a move, on a child without an automated sync, or again after a transient failure."}, []string{"rollout"}),
		Refreshes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cmp_phase_refreshes_total",
			Help: "Refreshes the agent asked Argo CD for, by target (parent, child)."}, []string{"rollout", "target"}),
		phaseChildren: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cmp_phase_phase_children",
			Help: "Children of a rollout's current phase by state (Pending: not admitted yet; Waiting, Done, Failed, Errored, Returning, Skipped); no series when no rollout progresses."}, []string{"rollout", "phase", "state"}),
		rolloutSts: map[string]string{},
		waitingFor: map[string]string{},
		children:   map[string]map[[2]string]bool{},
	}
	if reg != nil {
		reg.MustRegister(m.phase, m.status, m.clusters, m.hooks, m.Writes, m.Conflicts, m.Rerender, m.Decide, m.Pass, m.Retries, m.watchLag, m.waiting, m.deadline,
			m.rolloutDuration, m.phaseDuration, m.Trigger, m.Syncs, m.Refreshes, m.phaseChildren)
	}
	return m
}

// InputsRead records a pass of rollout that read its inputs at read, in the newest of them:
// its lag from the change is observed when no earlier pass of the rollout read that change
// (fresh).
func (m *AgentMetrics) InputsRead(rollout string, in watchlag.Input, read time.Time) (lag time.Duration, fresh bool) {
	lag = in.Lag(read)
	if fresh = m.read.Fresh(rollout, in); fresh && !in.Changed.IsZero() {
		m.watchLag.WithLabelValues(rollout).Observe(lag.Seconds())
	}
	return lag, fresh
}

// Observe sets a rollout's gauges from its state; waits is what it waits for, as the
// parent's waiting-for annotation says (status.Parent), "" for nothing.
func (m *AgentMetrics) Observe(name string, st *state.State, waits string) {
	phase, status := 0, "Idle"
	counts := map[state.ClusterStatus]int{}
	if r := st.Rollout; r != nil {
		status = string(r.Status)
		if r.Active() && !r.Status.IsTerminal() && r.Phase < len(r.Phases) {
			phase = r.Phase + 1
		}
		for _, ph := range r.Phases {
			for _, cs := range ph.Clusters {
				counts[cs.Status]++
			}
		}
	}
	m.phase.WithLabelValues(name).Set(float64(phase))
	// the counters' series exist from a rollout's first pass on: rate() over them is 0, not absent
	m.Syncs.WithLabelValues(name)
	m.Refreshes.WithLabelValues(name, TargetParent)
	m.Refreshes.WithLabelValues(name, TargetChild)
	m.deadline.WithLabelValues(name).Set(deadlineOf(st))
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.waitingFor[name]; ok && old != waits {
		m.waiting.DeleteLabelValues(name, old)
	}
	if m.waitingFor[name] = waits; waits != "" {
		m.waiting.WithLabelValues(name, waits).Set(1)
	}
	if old, ok := m.rolloutSts[name]; ok && old != status {
		m.status.DeleteLabelValues(name, old)
	}
	m.rolloutSts[name] = status
	m.status.WithLabelValues(name, status).Set(1)
	m.setPhaseChildren(name, st)
	for _, s := range []state.ClusterStatus{state.ClusterWaiting, state.ClusterDone, state.ClusterFailed, state.ClusterErrored, state.ClusterReturning, state.ClusterSkipped} {
		m.clusters.WithLabelValues(name, string(s)).Set(float64(counts[s]))
	}
}

// deadlineOf is the current phase's progressDeadline in Unix seconds, 0 when none runs.
func deadlineOf(st *state.State) float64 {
	r := st.Rollout
	if r == nil || r.Status != state.RolloutProgressing || r.Phase >= len(r.Phases) || r.Phases[r.Phase].DeadlineAt == nil {
		return 0
	}
	return float64(r.Phases[r.Phase].DeadlineAt.Unix())
}

// Hook counts a hook or check run of a kind, its outcome and how long it took.
func (m *AgentMetrics) Hook(kind string, outcome state.HookStatus, d time.Duration) {
	m.hooks.WithLabelValues(kind, string(outcome)).Observe(d.Seconds())
}

// setPhaseChildren sets cmp_phase_phase_children of a rollout and deletes the series it
// set before that are not set now (another phase's, a state no child is in any more).
// Called with m.mu held.
func (m *AgentMetrics) setPhaseChildren(name string, st *state.State) {
	phase, counts := PhaseChildren(st)
	now := make(map[[2]string]bool, len(counts))
	for s, n := range counts {
		now[[2]string{phase, s}] = true
		m.phaseChildren.WithLabelValues(name, phase, s).Set(float64(n))
	}
	for old := range m.children[name] {
		if !now[old] {
			m.phaseChildren.DeleteLabelValues(name, old[0], old[1])
		}
	}
	m.children[name] = now
}

// Written observes the ends the write of next over prev recorded (Ends): each once, as
// the agent that wrote it is the one that saw it.
func (m *AgentMetrics) Written(name string, prev, next *state.State, now time.Time) {
	for _, e := range Ends(prev, next) {
		h := m.rolloutDuration
		if e.Phase != "" {
			h = m.phaseDuration
		}
		h.WithLabelValues(name, e.Result).Observe(e.Took.Seconds())
	}
	if detected, ok := Triggered(prev, next); ok {
		// the write admitted a phase's first children: the agent asks for their re-render and moves them now
		m.Trigger.WithLabelValues(name).Observe(now.Sub(detected).Seconds())
	}
}

// RefreshedParent counts a refresh of a parent the agent asked for, under each rollout it
// renders.
func (m *AgentMetrics) RefreshedParent(rollouts ...string) {
	for _, r := range rollouts {
		m.Refreshes.WithLabelValues(r, TargetParent).Inc()
	}
}
