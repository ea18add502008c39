package rollout

import (
	"fmt"
	"maps"
	"slices"
	"strings"

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
func (ps *pass) gate(ph *state.PhaseState, kind string, hooks []spec.Hook, clusters []string, limit int) (gateVerdict, string, state.HookStatus) {
	r := ps.st.Rollout
	if ph.Hooks == nil {
		ph.Hooks = map[string]state.HookRun{}
	}
	t := tally{ph: ph, kind: kind, limit: limit, running: ps.recordResults(ph, kind), verdict: gatePassed}
	names := clusterNames(ps.o.Subjects, clusters)
	for _, h := range hooks {
		targets, perCluster := []string{""}, h.PerCluster()
		if perCluster {
			targets = clusters
		}
		for _, c := range targets {
			key, run, started := ps.startRun(&t, h, c)
			if !started {
				continue
			}
			if run.Status == state.HookRunning {
				t.pending = true
				ps.add(Action{Kind: ActRunHook, Key: key, Hook: h, Cluster: c, ClusterName: names[c], Phase: r.Phase})
				continue
			}
			if t.judge(h, run, perCluster) {
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

// tally is where gate stands in its list of hooks (of kind, in phase ph, at most limit
// at once): the runs taking a slot, whether some still wait or run, and the verdict so far
// with why and the run status behind it.
type tally struct {
	ph      *state.PhaseState
	kind    string
	limit   int
	running int
	pending bool
	verdict gateVerdict
	why     string
	status  state.HookStatus
}

// recordResults records the results that came back for the phase's running hooks of kind,
// and returns how many still run: results first, so ended runs free their slots.
func (ps *pass) recordResults(ph *state.PhaseState, kind string) int {
	r := ps.st.Rollout
	running := 0
	for _, key := range slices.Sorted(maps.Keys(ph.Hooks)) {
		if run := ph.Hooks[key]; run.Kind == kind && run.Status == state.HookRunning {
			// a skipped cluster's run is ignored: it holds no slot
			if run = ps.record(ph, run, ps.o.Hooks[key]); run.Status == state.HookRunning && !slices.Contains(r.Skipped, run.Cluster) {
				running++
			}
			ph.Hooks[key] = run
		}
	}
	return running
}

// startRun returns the ledger's run of hook h on cluster c ("": not per cluster) in t's
// list, started (recorded as Running, with its Event) when the ledger has none and a slot is
// free. started is false when the run has none yet and waits for a slot.
func (ps *pass) startRun(t *tally, h spec.Hook, c string) (key string, run state.HookRun, started bool) {
	ph, kind, now := t.ph, t.kind, ps.now
	key = HookKey(kind, h.Name, c)
	run, seen := ph.Hooks[key]
	if !seen && t.running >= t.limit {
		t.pending = true
		return key, run, false
	}
	if !seen {
		run = state.HookRun{Kind: kind, Name: h.Name, Cluster: c, Status: state.HookRunning, StartedAt: now}
		t.running++
		ps.emit(ps.st.Rollout, EvHookStarted, fmt.Sprintf("phase %s: %s %s started", ph.Name, kind, target(h.Name, c)))
	}
	ph.Hooks[key] = run
	return key, run, true
}

// judge weighs a run that ended into the verdict, and reports whether it aborts the rollout
// (why and status then say how).
func (t *tally) judge(h spec.Hook, run state.HookRun, perCluster bool) (aborts bool) {
	kind := t.kind
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
func (ps *pass) record(ph *state.PhaseState, run state.HookRun, res HookResult) state.HookRun {
	if res.Status == "" || res.Status == state.HookRunning {
		return run
	}
	run, ev := withResult(run, res)
	ps.emit(ps.st.Rollout, ev, fmt.Sprintf("phase %s: %s %s %s after %d attempt(s): %s", ph.Name, run.Kind, target(run.Name, run.Cluster), res.Status, res.Attempts, res.Message))
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
func (ps *pass) recordLate() {
	r := ps.st.Rollout
	if r.Phase >= len(r.Phases) {
		return
	}
	ph := &r.Phases[r.Phase]
	for _, key := range slices.Sorted(maps.Keys(ph.Hooks)) {
		if run := ph.Hooks[key]; run.Status == state.HookRunning {
			ph.Hooks[key] = ps.record(ph, run, ps.o.Hooks[key])
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
func (ps *pass) hookGate(ph *state.PhaseState, sp spec.Phase, kind string) bool {
	r := ps.st.Rollout
	hooks, limit := hooksOf(ps.o.Limits, sp, kind)
	hooks, held := ps.holdOverLimits(ph, kind, hooks)
	if len(hooks) == 0 && !held {
		return true
	}
	v, why, status := ps.gate(ph, kind, hooks, hookTargets(r, ph, sp, kind), limit)
	if held && v == gatePassed {
		v = gatePending // a held hook has not run: the list waits for it
	}
	if v != gateAborted && kind != KindPre && ps.clusterFailuresStop(ph, sp) {
		return false
	}
	switch {
	case v == gatePassed:
		return true
	case v == gateAborted:
		markFailed(ph, PhaseFailed, ps.now)
		r.Status, r.Reason = StatusStopped, fmt.Sprintf("phase %s aborted: %s", ph.Name, why)
		ps.emit(r, EvRolloutAborted, "rollout aborted: "+r.Reason)
	case v == gateInconclusive:
		ps.holdInconclusive(ph, hooks, why)
	case v == gateFailed && sp.OnFailure == "continue":
		return true // reported when it ended; onFailure: continue goes on
	case v == gateFailed:
		phase := PhaseFailed
		if status == state.HookErrored {
			phase = PhaseErrored
		}
		ps.stopOrRollBack(ph, sp, phase, fmt.Sprintf("phase %s %s: %s", ph.Name, phase, why))
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
func (ps *pass) clusterFailuresStop(ph *state.PhaseState, sp spec.Phase) bool {
	if failed := ps.clusterHookFailures(ph, sp); len(failed) > sp.MaxFailures && sp.OnFailure != "continue" {
		ps.fail(ph, sp, failed)
		return true
	}
	return ps.budgetSpent(ph, sp)
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
