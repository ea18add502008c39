package hookrun

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Run is one run the engine asked for (rollout.ActRunHook), as the agent read it.
type Run struct {
	// Key is its ledger key (the action's), for the log.
	Key string
	// Call is what the run is called with: its Hook as declared (the run templates it),
	// its IdempotencyKey (Key), Rollout and Place.
	Call hooks.Call
	// Vars are the hook's template variables (Vars).
	Vars map[string]string
	// Dest is the child of a per-cluster run whose kind reads it (hooks.ReadsChild); nil
	// for any other run.
	Dest *Dest
	// Ended is called once the run ended, recorded or cut short (the agent reconciles the
	// rollout again); nil: nothing.
	Ended func()
}

// Go carries run out (on the caller's goroutine: the agent starts it with go once Begin
// said so) and keeps its result until the ledger has it. A run cut short by ctx (the
// agent's shutdown) leaves no result: the ledger still says Running and the next agent
// runs it again with the same key.
func (l *Runs) Go(ctx context.Context, run Run) {
	id := run.Call.IdempotencyKey
	defer func() {
		l.done(id)
		if run.Ended != nil {
			run.Ended()
		}
	}()
	res, cleanup := l.Attempts(ctx, run)
	if ctx.Err() != nil {
		return
	}
	l.end(run.Call.Rollout, id, res, cleanup)
	l.opts.Log.Info("hook ended", "rollout", run.Call.Rollout, "hook", run.Key, "status", res.Status, "attempts", res.Attempts, "duration", res.Duration)
}

// Attempts runs the hook's attempts; with the result it returns what the run left to
// remove once the ledger has recorded it, if anything.
func (l *Runs) Attempts(ctx context.Context, run Run) (rollout.HookResult, hooks.Cleanup) {
	start := time.Now()
	h, secrets, err := hooks.Template(run.Call.Hook, run.Vars, l.secret(ctx))
	if err != nil {
		return errored(err), nil
	}
	reach := l.runner.Reach(h)
	if reach.SkipsTLSVerify {
		l.opts.Log.Warn("hook skips TLS verification", "rollout", run.Call.Rollout, "hook", run.Key)
	}
	call := run.Call
	call.Hook, call.Secrets = h, secrets
	if reach.PerRequest {
		call.Slot = func(ctx context.Context) func() { return l.HostSlot(ctx, reach.Host) }
	} else {
		release := l.HostSlot(ctx, reach.Host)
		defer release()
	}
	if run.Dest != nil {
		if call.Target, err = run.Dest.Target(call.Cluster, run.Vars); err != nil {
			return errored(err), nil
		}
	}
	attempts := 0
	res := l.runner.RunAttempts(ctx, call, l.opts.Backoff, func(n int, _ hooks.Result) { attempts = n })
	status := ledgerStatus(res.Outcome)
	if l.opts.Metrics != nil {
		l.opts.Metrics.Hook(call.Place, status, time.Since(start))
	}
	return rollout.HookResult{Status: status, Attempts: attempts, FinishedAt: time.Now(), Duration: time.Since(start), Message: res.Message}, res.Cleanup
}

// errored is the result of a run that could not be made (its one attempt).
func errored(err error) rollout.HookResult {
	return rollout.HookResult{Status: state.HookErrored, Attempts: 1, FinishedAt: time.Now(), Message: err.Error()}
}

// ledgerStatus is how the ledger records a run's outcome; one it has no status for is
// Errored (we could not tell), never left Running.
func ledgerStatus(o hooks.Outcome) state.HookStatus {
	switch o {
	case hooks.Succeeded:
		return state.HookSucceeded
	case hooks.Failed:
		return state.HookFailed
	case hooks.Inconclusive:
		return state.HookInconclusive
	default:
		return state.HookErrored
	}
}

// secret resolves secret references from the secret namespace.
func (l *Runs) secret(ctx context.Context) hooks.SecretLookup {
	return func(name, key string) (string, error) {
		s, err := l.opts.Kube.CoreV1().Secrets(l.opts.SecretNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", fmt.Errorf("read secret: %w", err)
		}
		v, ok := s.Data[key]
		if !ok {
			return "", fmt.Errorf("no such key")
		}
		return string(v), nil
	}
}

// HostSlot waits for one of the slots of the host a run reaches (Reach.Host) and returns
// its release; a run that reaches no host takes none.
func (l *Runs) HostSlot(ctx context.Context, host string) func() {
	if host == "" {
		return func() {}
	}
	l.mu.Lock()
	slots, ok := l.hosts[host]
	if !ok {
		slots = make(chan struct{}, l.opts.PerHost)
		l.hosts[host] = slots
	}
	l.mu.Unlock()
	select {
	case slots <- struct{}{}:
		return func() { <-slots }
	case <-ctx.Done():
		return func() {}
	}
}
