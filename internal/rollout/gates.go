package rollout

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// The lists of a phase's hooks: the first part of a ledger key, which the ledger (HookRun.Kind)
// and the hooks' metrics call the run's kind. Not a hook's kind in spec.HookKind's sense (its
// type: http, command).
const (
	KindPre   = "pre"
	KindCheck = "check"
	KindPost  = "post"
)

// Concurrency limits of seed 000, per phase, unless the plan says otherwise.
const (
	MaxHooksAtOnce  = 5
	MaxChecksAtOnce = 10
)

// HookKey is a ledger key: kind/name[/cluster].
func HookKey(kind, name, cluster string) string {
	if cluster == "" {
		return kind + "/" + name
	}
	return kind + "/" + name + "/" + cluster
}

// HookPlace is where the hook of a ledger key sits in its phase: its kind (pre, post or
// check; seed 000's HOOK_TYPE).
func HookPlace(key string) string {
	kind, _, _ := strings.Cut(key, "/")
	return kind
}

// gateVerdict is where a list of hooks stands.
type gateVerdict int

const (
	gatePending gateVerdict = iota // some still to run or running
	gatePassed                     // every one succeeded (or failed under failurePolicy: ignore)
	gateFailed                     // one failed under fail or retry: onFailure applies
	gateAborted                    // one failed under abort: the rollout ends now
	// a run whose kind pauses for a person (spec.HookTraits.InconclusiveFix) was
	// Inconclusive: the rollout pauses for a person
	gateInconclusive
)

// gate drives one list of hooks of the current phase: it records results that came back,
// starts what may start (recorded as Running before it runs, at most limit at once), and
// asks again for runs the ledger says are running (a new agent restarts them with the same
// idempotency key). A recorded success is never run again.
func gate(r *state.Rollout, ph *state.PhaseState, kind string, hooks []spec.Hook, clusters []string, limit int,
	o Observed, now time.Time, acts *[]Action) (gateVerdict, string, state.HookStatus) {
	if ph.Hooks == nil {
		ph.Hooks = map[string]state.HookRun{}
	}
	t := tally{running: recordResults(r, ph, kind, o, now, acts), verdict: gatePassed}
	names := clusterNames(o.Subjects, clusters)
	for _, h := range hooks {
		targets, perCluster := []string{""}, h.PerCluster()
		if perCluster {
			targets = clusters
		}
		for _, c := range targets {
			key, run, started := t.start(r, ph, kind, h, c, limit, now, acts)
			if !started {
				continue
			}
			if run.Status == state.HookRunning {
				t.pending = true
				*acts = append(*acts, Action{Kind: ActRunHook, Key: key, Hook: h, Cluster: c, ClusterName: names[c], Phase: r.Phase})
				continue
			}
			if t.judge(kind, h, run, perCluster) {
				return gateAborted, t.why, t.status
			}
		}
	}
	if key := inconclusive(r, ph, kind, hooks); key != "" && t.verdict != gateFailed {
		return gateInconclusive, key, state.HookInconclusive // why is the run's ledger key
	}
	if t.verdict == gatePassed && t.pending {
		t.verdict = gatePending
	}
	return t.verdict, t.why, t.status
}

// tally is where gate stands in its list of hooks: the runs taking a slot, whether some
// still wait or run, and the verdict so far with why and the run status behind it.
type tally struct {
	running int
	pending bool
	verdict gateVerdict
	why     string
	status  state.HookStatus
}

// recordResults records the results that came back for the phase's running hooks of kind,
// and returns how many still run: results first, so ended runs free their slots.
func recordResults(r *state.Rollout, ph *state.PhaseState, kind string, o Observed, now time.Time, acts *[]Action) int {
	running := 0
	for _, key := range slices.Sorted(maps.Keys(ph.Hooks)) {
		if run := ph.Hooks[key]; run.Kind == kind && run.Status == state.HookRunning {
			// a skipped cluster's run is ignored: it holds no slot
			if run = record(r, ph, run, o.Hooks[key], now, acts); run.Status == state.HookRunning && !slices.Contains(r.Skipped, run.Cluster) {
				running++
			}
			ph.Hooks[key] = run
		}
	}
	return running
}

// start returns the ledger's run of hook h on cluster c ("": not per cluster), started
// (recorded as Running, with its Event) when the ledger has none and a slot is free. started
// is false when the run has none yet and waits for a slot.
func (t *tally) start(r *state.Rollout, ph *state.PhaseState, kind string, h spec.Hook, c string, limit int,
	now time.Time, acts *[]Action) (key string, run state.HookRun, started bool) {
	key = HookKey(kind, h.Name, c)
	run, seen := ph.Hooks[key]
	if !seen && t.running >= limit {
		t.pending = true
		return key, run, false
	}
	if !seen {
		run = state.HookRun{Kind: kind, Name: h.Name, Cluster: c, Status: state.HookRunning, StartedAt: now}
		t.running++
		emit(r, acts, now, EvHookStarted, fmt.Sprintf("phase %s: %s %s started", ph.Name, kind, target(h.Name, c)))
	}
	ph.Hooks[key] = run
	return key, run, true
}

// judge weighs a run that ended into the verdict, and reports whether it aborts the rollout
// (why and status then say how).
func (t *tally) judge(kind string, h spec.Hook, run state.HookRun, perCluster bool) (aborts bool) {
	switch {
	case run.Status == state.HookSucceeded, h.FailurePolicy == "ignore":
	case pausesForAPerson(h, run):
		// the rollout pauses for a person (gate, once through the list), unless a failure decides first;
		// a kind that does not pause has its Inconclusive run judged as a failure
	case h.FailurePolicy == "abort":
		t.why, t.status = fmt.Sprintf("%s %s (failurePolicy abort): %s", kind, runWhat(run), run.Message), run.Status
		return true
	case perCluster && kind != KindPre:
		// the cluster's failure counts against the phase's maxFailures (clusterHookFailures)
	case t.verdict == gatePassed:
		t.verdict, t.why, t.status = gateFailed, fmt.Sprintf("%s %s: %s", kind, runWhat(run), run.Message), run.Status
	}
	return false
}

// record applies a finished run's result to its ledger entry.
func record(r *state.Rollout, ph *state.PhaseState, run state.HookRun, res HookResult, now time.Time, acts *[]Action) state.HookRun {
	if res.Status == "" || res.Status == state.HookRunning {
		return run
	}
	run, ev := withResult(run, res)
	emit(r, acts, now, ev, fmt.Sprintf("phase %s: %s %s %s after %d attempt(s): %s", ph.Name, run.Kind, target(run.Name, run.Cluster), res.Status, res.Attempts, res.Message))
	return run
}

// withResult is run ended as res says, and the Event that tells it.
func withResult(run state.HookRun, res HookResult) (state.HookRun, string) {
	finished := res.FinishedAt
	run.Status, run.Attempts, run.FinishedAt, run.Duration, run.Message = res.Status, res.Attempts, &finished, res.Duration, res.Message
	if res.Status != state.HookSucceeded {
		return run, EvHookFailed
	}
	return run, EvHookSucceeded
}

// recordLate records, in a rollout that stopped, how the runs of its phase that were still
// running when it stopped ended: the ledger says so, instead of Running for ever, and an
// Event tells it. Nothing is decided on them: the rollout stays where it stopped.
func recordLate(r *state.Rollout, o Observed, now time.Time, acts *[]Action) {
	if r.Phase >= len(r.Phases) {
		return
	}
	ph := &r.Phases[r.Phase]
	for _, key := range slices.Sorted(maps.Keys(ph.Hooks)) {
		if run := ph.Hooks[key]; run.Status == state.HookRunning {
			ph.Hooks[key] = record(r, ph, run, o.Hooks[key], now, acts)
		}
	}
}

// runWhat names a run and its status: "health on dev-2 Failed".
func runWhat(run state.HookRun) string {
	return target(run.Name, run.Cluster) + " " + string(run.Status)
}

func target(name, cluster string) string {
	if cluster == "" {
		return name
	}
	return name + " on " + cluster
}

// hookGate runs one kind of the current phase's hooks and applies its verdict: it reports
// whether the phase may go on; a failure applies onFailure, an abort ends the rollout. A
// hook templated with a cluster field runs once per cluster (hookTargets); a failed
// per-cluster check or post-hook fails its cluster, which counts against maxFailures like a
// failed sync.
func hookGate(st *state.State, p plan.Plan, ph *state.PhaseState, sp spec.Phase, kind string, o Observed, now time.Time, acts *[]Action) bool {
	r := st.Rollout
	hooks, limit := hooksOf(o.Limits, sp, kind)
	hooks, held := holdOverLimits(r, ph, kind, hooks, o.Limits, o, now, acts)
	if len(hooks) == 0 && !held {
		return true
	}
	v, why, status := gate(r, ph, kind, hooks, hookTargets(r, ph, sp, kind), limit, o, now, acts)
	if held && v == gatePassed {
		v = gatePending // a held hook has not run: the list waits for it
	}
	if v != gateAborted && kind != KindPre && clusterFailuresStop(st, p, ph, sp, o, now, acts) {
		return false
	}
	switch {
	case v == gatePassed:
		return true
	case v == gateAborted:
		markFailed(ph, PhaseFailed, now)
		r.Status, r.Reason = StatusStopped, fmt.Sprintf("phase %s aborted: %s", ph.Name, why)
		emit(r, acts, now, EvRolloutAborted, "rollout aborted: "+r.Reason)
	case v == gateInconclusive:
		holdInconclusive(st, ph, hooks, why, now, acts)
	case v == gateFailed && sp.OnFailure == "continue":
		return true // reported when it ended; onFailure: continue goes on
	case v == gateFailed:
		phase := PhaseFailed
		if status == state.HookErrored {
			phase = PhaseErrored
		}
		stopOrRollBack(st, p, ph, sp, phase, fmt.Sprintf("phase %s %s: %s", ph.Name, phase, why), o, now, acts)
	}
	return false
}

// hooksOf is the phase's hooks of kind, and how many of them may run at once.
func hooksOf(l spec.Limits, sp spec.Phase, kind string) ([]spec.Hook, int) {
	switch kind {
	case KindCheck:
		return sp.Checks, orDefault(l.ChecksAtOnce, MaxChecksAtOnce)
	case KindPost:
		return sp.PostHooks, orDefault(l.HooksAtOnce, MaxHooksAtOnce)
	}
	return sp.PreHooks, orDefault(l.HooksAtOnce, MaxHooksAtOnce)
}

// clusterFailuresStop reports whether the phase's failed clusters, those whose per-cluster
// check or post-hook failed included, stop it: over its maxFailures (the phase fails), or
// over the rollout's failure budget.
func clusterFailuresStop(st *state.State, p plan.Plan, ph *state.PhaseState, sp spec.Phase, o Observed, now time.Time, acts *[]Action) bool {
	if failed := clusterHookFailures(st.Rollout, ph, sp, now, acts); len(failed) > sp.MaxFailures && sp.OnFailure != "continue" {
		fail(st, p, ph, sp, failed, o, now, acts)
		return true
	}
	return budgetSpent(st, p, ph, sp, o, now, acts)
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
