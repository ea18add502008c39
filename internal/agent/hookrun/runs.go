package hookrun

import (
	"fmt"
	"log/slog"
	"sync"

	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/telemetry"
)

// Options are what runs are carried out with.
type Options struct {
	// Backoff is failurePolicy: retry's.
	Backoff hooks.Backoff
	// PerHost caps the runs reaching one host at once (Reach.Host; --hooks-per-host).
	PerHost int
	// Kube and SecretNamespace are where a hook's secret references are read.
	Kube            kubernetes.Interface
	SecretNamespace string
	// Metrics counts each run's outcome and length (nil: not counted).
	Metrics *telemetry.AgentMetrics
	// Log is where runs are logged (nil: nowhere).
	Log *slog.Logger
}

// Runs are the hook runs of this process: in flight, and ended but not yet recorded in
// the ledger. It is safe for concurrent use.
type Runs struct {
	runner *hooks.Runner
	opts   Options

	mu       sync.Mutex
	inFlight map[string]bool                          // idempotency key → running
	results  map[string]map[string]rollout.HookResult // rollout → idempotency key → result
	// cleanups are what ended runs left to remove once the ledger has their outcome (a job
	// hook's Job its hookDeletePolicy deletes), by idempotency key.
	cleanups map[string]hooks.Cleanup
	hosts    map[string]chan struct{} // host → its slots (PerHost)
}

// New is the runs of one process, run by runner.
func New(runner *hooks.Runner, opts Options) *Runs {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Runs{runner: runner, opts: opts, inFlight: map[string]bool{}, results: map[string]map[string]rollout.HookResult{},
		cleanups: map[string]hooks.Cleanup{}, hosts: map[string]chan struct{}{}}
}

// Key is a run's idempotency key, stable per (rollout, revision, phase, ledger key): the
// hook, and the child of a per-cluster run. Ledgers written by earlier versions are
// matched by it: its spelling never changes.
func Key(name string, r *state.Rollout, phase int, ledgerKey string) string {
	return fmt.Sprintf("%s/%s/%s/%s", name, r.Revision, phaseLabel(r.Phases[phase]), ledgerKey)
}

// phaseLabel is how a run names its phase in its idempotency key: the phase, and for a
// track's copy of it, the track (phase@track), so tracks' runs of one hook are apart.
func phaseLabel(ph state.PhaseState) string {
	if ph.Track != "" {
		return ph.Name + "@" + ph.Track
	}
	return ph.Name
}

// Results are the rollout's ended runs for the current phase of cur, by ledger key.
func (l *Runs) Results(name string, cur *state.State) map[string]rollout.HookResult {
	out := map[string]rollout.HookResult{}
	if cur == nil || cur.Rollout == nil || cur.Rollout.Phase >= len(cur.Rollout.Phases) {
		return out
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended(name, cur.Rollout, cur.Rollout.Phase)
}

// TrackResults are the rollout's ended runs for each track's current phase of cur, by
// track and ledger key (tracks walk their phases at once, so each has its own); nil
// before a split.
func (l *Runs) TrackResults(name string, cur *state.State) map[string]map[string]rollout.HookResult {
	if cur == nil || cur.Rollout == nil || len(cur.Rollout.Tracks) == 0 {
		return nil
	}
	r := cur.Rollout
	out := map[string]map[string]rollout.HookResult{}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, t := range r.Tracks {
		if t.Phase < len(r.Phases) && r.Phases[t.Phase].Track == t.Name {
			out[t.Name] = l.ended(name, r, t.Phase)
		}
	}
	return out
}

// ended are the results kept for the hooks of phase i of r, by ledger key; l.mu is held.
func (l *Runs) ended(name string, r *state.Rollout, i int) map[string]rollout.HookResult {
	out := map[string]rollout.HookResult{}
	for key := range r.Phases[i].Hooks {
		if res, ok := l.results[name][Key(name, r, i, key)]; ok {
			out[key] = res
		}
	}
	return out
}

// Begin marks run id of the rollout in flight and reports true, unless it is running or
// has ended and its result waits for the ledger: then the run is not started again.
func (l *Runs) Begin(name, id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ended := l.results[name][id]
	if l.inFlight[id] || ended {
		return false
	}
	l.inFlight[id] = true
	return true
}

// end keeps what run id of the rollout ended with until the ledger has it.
func (l *Runs) end(name, id string, res rollout.HookResult, cleanup hooks.Cleanup) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.results[name] == nil {
		l.results[name] = map[string]rollout.HookResult{}
	}
	l.results[name][id] = res
	if cleanup != nil {
		l.cleanups[id] = cleanup
	}
}

// done marks run id no longer in flight.
func (l *Runs) done(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.inFlight, id)
}
