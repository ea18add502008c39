package agent

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// hookRuns are the hook runs of this process: in flight, and ended but not yet recorded in
// the ledger. A run is identified by its idempotency key (rollout, revision, phase, ledger
// key), so a result can never be taken for another rollout's run.
type hookRuns struct {
	mu       sync.Mutex
	inFlight map[string]bool
	results  map[string]map[string]rollout.HookResult // rollout → idempotency key → result
	// cleanups are what ended runs left to remove once the ledger has their outcome (a job
	// hook's Job its hookDeletePolicy deletes), by idempotency key.
	cleanups map[string]hooks.Cleanup
	hosts    map[string]chan struct{} // host → its slots (--hooks-per-host)
}

// idempotencyKey is stable per (rollout, revision, phase, hook[, cluster]).
func idempotencyKey(name string, r *state.Rollout, phase int, key string) string {
	return fmt.Sprintf("%s/%s/%s/%s", name, r.Revision, phaseLabel(r.Phases[phase]), key)
}

// hookResults are this rollout's ended runs for the current phase of cur, by ledger key.
func (a *Agent) hookResults(name string, cur *state.State) map[string]rollout.HookResult {
	out := map[string]rollout.HookResult{}
	if cur == nil || cur.Rollout == nil || cur.Rollout.Phase >= len(cur.Rollout.Phases) {
		return out
	}
	r := cur.Rollout
	a.runs.mu.Lock()
	defer a.runs.mu.Unlock()
	for key := range r.Phases[r.Phase].Hooks {
		if res, ok := a.runs.results[name][idempotencyKey(name, r, r.Phase, key)]; ok {
			out[key] = res
		}
	}
	return out
}

// startHooks starts the runs the engine asks for that this process is not running yet,
// forgets results the written ledger has recorded, and removes what those runs left for
// removal (hooks.Cleanup: a Job its hookDeletePolicy deletes).
func (a *Agent) startHooks(ctx context.Context, p *pass, st *state.State, acts []rollout.Action) {
	name, r := p.plan.Rollout, st.Rollout
	a.runs.mu.Lock()
	var cleanup []hooks.Cleanup
	for id := range a.runs.results[name] {
		if a.pendingResult(r, name, id) {
			continue
		}
		delete(a.runs.results[name], id)
		if c, ok := a.runs.cleanups[id]; ok {
			delete(a.runs.cleanups, id)
			if ledgerRecorded(r, name, id) {
				cleanup = append(cleanup, c)
			}
		}
	}
	a.runs.mu.Unlock()
	a.cleanUp(ctx, name, cleanup)
	for _, act := range acts {
		if act.Kind != rollout.ActRunHook {
			continue
		}
		id := idempotencyKey(name, r, act.Phase, act.Key)
		a.runs.mu.Lock()
		_, ended := a.runs.results[name][id]
		busy := a.runs.inFlight[id] || ended
		if !busy {
			a.runs.inFlight[id] = true
		}
		a.runs.mu.Unlock()
		if !busy {
			pa := inPlan(p.plan.Phases, r, act) // a track's phase → the plan's
			go a.runHook(ctx, p, r.Revision, pa, id, runStarted(r, act), a.childOf(p, st, pa))
		}
	}
}

// runStarted is when the ledger started act's run (zero when it has no entry).
func runStarted(r *state.Rollout, act rollout.Action) time.Time {
	if act.Phase < 0 || act.Phase >= len(r.Phases) {
		return time.Time{}
	}
	return r.Phases[act.Phase].Hooks[act.Key].StartedAt
}

// pendingResult reports whether a kept result is still waiting for the ledger: its run is
// recorded Running in the current phase.
func (a *Agent) pendingResult(r *state.Rollout, name, id string) bool {
	for _, i := range r.Current() { // the phase, or each track's
		for key, run := range r.Phases[i].Hooks {
			if run.Status == state.HookRunning && idempotencyKey(name, r, i, key) == id {
				return true
			}
		}
	}
	return false
}

// runHook templates and runs one hook in the background, then hands its result to the
// rollout's next reconcile. A run cut short by the agent's shutdown leaves no result: the
// ledger still says Running and the next agent runs it again with the same key.
func (a *Agent) runHook(ctx context.Context, p *pass, revision string, act rollout.Action, id string, started time.Time, dest *childDest) {
	defer func() {
		a.runs.mu.Lock()
		delete(a.runs.inFlight, id)
		a.runs.mu.Unlock()
		a.queue.Add(p.plan.Rollout)
	}()
	res, cleanup := a.hookAttempts(ctx, p, revision, act, id, started, dest)
	if ctx.Err() != nil {
		return
	}
	a.runs.mu.Lock()
	if a.runs.results[p.plan.Rollout] == nil {
		a.runs.results[p.plan.Rollout] = map[string]rollout.HookResult{}
	}
	a.runs.results[p.plan.Rollout][id] = res
	if cleanup != nil {
		a.runs.cleanups[id] = cleanup
	}
	a.runs.mu.Unlock()
	a.log.Info("hook ended", "rollout", p.plan.Rollout, "hook", act.Key, "status", res.Status, "attempts", res.Attempts, "duration", res.Duration)
}

// hookCall is the call of one hook run the engine asked for: HOOK_TYPE (Place) is the
// place its ledger key names.
func (a *Agent) hookCall(p *pass, revision string, act rollout.Action, id string, started time.Time, h spec.Hook, secrets []string, vars map[string]string) hooks.Call {
	return hooks.Call{Rollout: p.plan.Rollout, Namespace: a.opts.Namespace, Phase: phaseName(p, act.Phase), Revision: revision,
		Cluster: act.Cluster, Place: rollout.HookPlace(act.Key), Hook: h, IdempotencyKey: id, Secrets: secrets,
		Server: vars["server"], Started: started, Until: act.At}
}

// hookAttempts runs the hook's attempts; with the result it returns what the run left to
// remove once the ledger has recorded it, if anything. dest is the child of a per-cluster
// run whose kind reads it (childOf).
func (a *Agent) hookAttempts(ctx context.Context, p *pass, revision string, act rollout.Action, id string, started time.Time, dest *childDest) (rollout.HookResult, hooks.Cleanup) {
	start := time.Now()
	vars := a.clusterVars(p, phaseName(p, act.Phase), act)
	h, secrets, err := hooks.Template(act.Hook, vars, a.secret(ctx))
	if err != nil {
		return rollout.HookResult{Status: state.HookErrored, Attempts: 1, FinishedAt: time.Now(), Message: err.Error()}, nil
	}
	reach := a.hooks.Reach(h)
	if reach.SkipsTLSVerify {
		a.log.Warn("hook skips TLS verification", "rollout", p.plan.Rollout, "hook", act.Key)
	}
	call := a.hookCall(p, revision, act, id, started, h, secrets, vars)
	if reach.PerRequest {
		call.Slot = func(ctx context.Context) func() { return a.hostSlot(ctx, reach.Host) }
	} else {
		release := a.hostSlot(ctx, reach.Host)
		defer release()
	}
	if dest != nil {
		if call.Target, err = dest.target(act.Cluster, vars); err != nil {
			return rollout.HookResult{Status: state.HookErrored, Attempts: 1, FinishedAt: time.Now(), Message: err.Error()}, nil
		}
	}
	attempts := 0
	res := a.hooks.RunAttempts(ctx, call, a.opts.Backoff, func(n int, _ hooks.Result) { attempts = n })
	status := ledgerStatus(res.Outcome)
	a.metrics.Hook(rollout.HookPlace(act.Key), status, time.Since(start))
	return rollout.HookResult{Status: status, Attempts: attempts, FinishedAt: time.Now(), Duration: time.Since(start), Message: res.Message}, res.Cleanup
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

func phaseName(p *pass, i int) string {
	if i < len(p.plan.Phases) {
		return p.plan.Phases[i].Name
	}
	return ""
}

// clusterVars are a hook's template variables: the phase's, and for a per-cluster run the
// cluster as the inventory has it — the one the engine named (a pre-hook's child may not
// exist yet), else the one the live child's label names.
func (a *Agent) clusterVars(p *pass, phase string, act rollout.Action) map[string]string {
	vars := hooks.PhaseVars(p.plan.Rollout, a.opts.Namespace, phase)
	vars[".track.name"] = act.Track // the track whose phase runs it ("" before a split)
	if act.Cluster == "" {
		return vars
	}
	cluster := act.ClusterName
	if app := p.children[act.Cluster]; cluster == "" && app != nil {
		cluster = app.Labels[contract.LabelCluster]
	}
	inv := a.inventory()
	if cluster == "" || inv == nil {
		return vars
	}
	for _, c := range inv.Clusters {
		if c.Name != cluster {
			continue
		}
		vars["name"], vars["server"], vars["project"] = c.Name, c.Server, c.Project
		for k, v := range c.Labels {
			vars["metadata.labels."+k] = v
		}
		for k, v := range c.Annotations {
			vars["metadata.annotations."+k] = v
		}
	}
	return vars
}

// secret resolves secret references from the agent's secret namespace.
func (a *Agent) secret(ctx context.Context) hooks.SecretLookup {
	return func(name, key string) (string, error) {
		s, err := a.kube.CoreV1().Secrets(a.opts.SecretNamespace).Get(ctx, name, metav1.GetOptions{})
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

// hostSlot waits for one of the slots of the host a run reaches (Reach.Host) and returns
// its release; a run that reaches no host takes none.
func (a *Agent) hostSlot(ctx context.Context, host string) func() {
	if host == "" {
		return func() {}
	}
	a.runs.mu.Lock()
	slots, ok := a.runs.hosts[host]
	if !ok {
		slots = make(chan struct{}, a.opts.HooksPerHost)
		a.runs.hosts[host] = slots
	}
	a.runs.mu.Unlock()
	select {
	case slots <- struct{}{}:
		return func() { <-slots }
	case <-ctx.Done():
		return func() {}
	}
}
