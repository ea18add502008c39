package hooks

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// Call is one hook to run, already templated for its phase (and cluster, for a per-cluster
// check), with its secret references resolved.
type Call struct {
	Rollout   string // APPSET_NAME
	Namespace string // APPSET_NAMESPACE
	Phase     string
	Revision  string
	Cluster   string // empty for a hook run once per phase
	// Place is where the hook sits in its phase: pre, post or check (seed 000's HOOK_TYPE),
	// or for a failure hook its cause: fail, stop, rollback or rolledback.
	Place string
	Hook  spec.Hook
	// IdempotencyKey is stable per (rollout, revision, phase, ledger key) across attempts,
	// restarts and leader changes.
	IdempotencyKey string
	// Secrets are the secret values resolved into Hook; they are redacted from every Result.
	Secrets []string
	// Server is the cluster's API server for a per-cluster run; empty for a per-phase one.
	Server string
	// Target is where a per-cluster run of a kind that reads the child goes (ChildReader:
	// the cluster, the child's AppProject and destination namespace); nil for other runs.
	Target *Target
	// Started is when the ledger started this run, and Attempt which attempt this is (from
	// 1; RunAttempts sets it): together they tell a run's own work (a job hook's Job) from
	// what an earlier run or attempt left under the same name.
	Started time.Time
	Attempt int
	// Until is when a check measured through the soak stops measuring (the soak's end);
	// zero for every other run.
	Until time.Time
	// Slot, for a run whose Reach is PerRequest, waits for one of the host's slots and
	// returns its release; nil: no cap.
	Slot func(context.Context) func()
}

// Runner runs hooks of every registered kind under its Limits; its fields are what the
// kinds share. It is safe for concurrent use.
type Runner struct {
	limits   Limits
	secure   *http.Client // http hooks, TLS verified
	insecure *http.Client // http hooks with insecureSkipVerify
	clusters *Clusters    // WithClusters; nil: none reached
}

// New makes a runner.
func New(l Limits) *Runner {
	l = l.withDefaults()
	g := &guard{allowPrivate: l.AllowPrivate, lookup: lookupNetIP}
	return &Runner{limits: l, secure: g.client(l, false), insecure: g.client(l, true)}
}

// Run makes one attempt with the kind the hook's type names, bounded by the hook's
// timeout as declared (never cut: a hook over the runner's Caps is not run, Errored with
// the setting to raise); its message is redacted and capped whatever the kind.
func (r *Runner) Run(ctx context.Context, c Call) Result {
	c.Hook = r.withDefaults(c.Hook)
	ctx, cancel := context.WithTimeout(ctx, callTimeout(c))
	defer cancel()
	red := newRedactor(c.Secrets)
	start := time.Now()
	res := NoBlock(c)
	if over := r.limits.Caps.Violations(c.Hook); len(over) > 0 {
		res = overLimit(over[0])
	} else if k, ok := kindOf(c.Hook.Type); ok && c.Hook.Block != nil {
		res = k.Run(ctx, r, c)
	}
	res.Duration = time.Since(start)
	res.Message = red.message(res.Message, r.limits.MaxMessage)
	return res
}

// RunTimeout is how long one attempt of h may take: its timeout, seed 000's default when
// unset.
func RunTimeout(h spec.Hook) time.Duration {
	if h.Timeout <= 0 {
		return spec.DefaultHookTimeout
	}
	return h.Timeout
}

// overLimit is the answer to a hook asking for more than the runner's Caps allow.
func overLimit(v spec.Violation) Result {
	return Result{Outcome: Errored, Message: fmt.Sprintf("not run: %s %s (fix: %s)", v.Field, v.Msg, v.Fix)}
}

// Reach says what a run of the templated hook h reaches (nothing, for a type this build
// does not run).
func (r *Runner) Reach(h spec.Hook) Reach {
	if k, ok := kindOf(h.Type); ok && h.Block != nil {
		return k.Reach(r.withDefaults(h).Block)
	}
	return Reach{}
}

// NoBlock is the answer to a call whose hook has no block of its type's kind: none, another
// kind's, or a type this build does not run (a plan from a newer plugin).
func NoBlock(c Call) Result {
	return Result{Outcome: Errored, Message: fmt.Sprintf("hook %q has no %s block", c.Hook.Name, c.Hook.Type)}
}

// Backoff is failurePolicy: retry's (seed 004: "retry the handler until it succeeds"):
// attempts until one succeeds or the run's retry time is spent — the hook's retryFor, else
// For — counted from the run's start in the ledger (Call.Started), so a restarted agent does
// not start the count again; waiting Initial, then twice as long each time up to Max, each
// wait jittered (between half and all of it) so hooks failing together do not retry in step.
// The waits are apimachinery's wait.Backoff (steps).
type Backoff struct {
	Initial, Max, For time.Duration
	// Attempts caps the attempts besides the time (0: as many as the time allows).
	Attempts int
}

// DefaultBackoff is the retry policy unless the agent is told otherwise.
var DefaultBackoff = Backoff{Initial: 2 * time.Second, Max: 30 * time.Second, For: spec.DefaultRetryFor}

// RunAttempts runs the call once, or under failurePolicy: retry until it succeeds or its
// retry time is spent (Backoff); each is reported to each (for the ledger) as it ends. It
// returns the last attempt's result.
func (r *Runner) RunAttempts(ctx context.Context, c Call, b Backoff, each func(attempt int, res Result)) Result {
	deadline := b.deadline(c)
	waits := b.steps()
	for i := 1; ; i++ {
		c.Attempt = i
		res := r.Run(ctx, c)
		if each != nil {
			each(i, res)
		}
		if res.Outcome == Succeeded || res.Outcome == Inconclusive || c.Hook.FailurePolicy != spec.FailurePolicyRetry ||
			ctx.Err() != nil || b.Attempts > 0 && i >= b.Attempts {
			return res
		}
		pause := waits.Step()
		if time.Now().Add(pause).After(deadline) {
			return res
		}
		select {
		case <-ctx.Done():
			return res
		case <-time.After(pause):
		}
	}
}

// deadline is when c's retries stop: its run's start (now for a run without one) plus the
// hook's retryFor, else b.For.
func (b Backoff) deadline(c Call) time.Time {
	start := c.Started
	if start.IsZero() {
		start = time.Now()
	}
	d := c.Hook.RetryFor
	if d <= 0 {
		d = b.For
	}
	return start.Add(d)
}

// steps are b's waits as a wait.Backoff: Initial, doubling up to Max, each a uniformly
// random time between half of it and all of it — wait.Backoff's jitter only lengthens, so
// it steps the halves and adds up to as much again (Jitter 1).
func (b Backoff) steps() wait.Backoff {
	return wait.Backoff{Duration: b.Initial / 2, Factor: 2, Jitter: 1, Cap: b.Max / 2, Steps: math.MaxInt32}
}

// Client is the guarded HTTP client of hooks that reach a host (checked addresses, no
// proxy, re-checked redirects): TLS verified, or not when insecure.
func (r *Runner) Client(insecure bool) *http.Client {
	if insecure {
		return r.insecure
	}
	return r.secure
}

// Limits are the runner's limits, defaults filled.
func (r *Runner) Limits() Limits { return r.limits }

// OptionsOf is a kind's own options of type T (or *T) among the runner's Limits.Kinds;
// false when the agent was given none.
func OptionsOf[T any](r *Runner) (T, bool) {
	for _, o := range r.limits.Kinds {
		switch v := o.(type) {
		case T:
			return v, true
		case *T:
			if v != nil {
				return *v, true
			}
		}
	}
	var zero T
	return zero, false
}

// CallTimer is a kind whose attempt may take longer than its hook's timeout (a metric
// check's timeout bounds one query): CallTimeout is how long an attempt of c may take.
type CallTimer interface {
	CallTimeout(c Call) time.Duration
}

// callTimeout is how long one attempt of c may take: its kind's CallTimeout, else its
// hook's timeout.
func callTimeout(c Call) time.Duration {
	if k, ok := kindOf(c.Hook.Type); ok {
		if t, ok := k.(CallTimer); ok {
			return t.CallTimeout(c)
		}
	}
	return RunTimeout(c.Hook)
}

// Defaulter is a kind that fills a block's unset fields from the agent's settings (a
// metric check's Prometheus address) before it runs and before its reach is told.
type Defaulter interface {
	WithDefaults(r *Runner, block spec.HookBlock) spec.HookBlock
}

// withDefaults is h with its kind's defaults (Defaulter) filled.
func (r *Runner) withDefaults(h spec.Hook) spec.Hook {
	if k, ok := kindOf(h.Type); ok && h.Block != nil {
		if d, ok := k.(Defaulter); ok {
			h.Block = d.WithDefaults(r, h.Block)
		}
	}
	return h
}
