package rollout

import (
	"fmt"
	"slices"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// progress moves the active rollout as far as the observations allow on this pass.
func progress(st *state.State, p plan.Plan, o Observed, now time.Time, acts *[]Action) {
	r := st.Rollout
	joiners(st, p, o, now, acts)
	prevHold := r.Window
	r.Window = nil // set again below while a window holds
	if !walk(st, p, o, prevHold, r.Split(), now, acts) || len(r.Tracks) > 0 && !walkTracks(st, p, o, now, acts) {
		return // waiting; with tracks, the shared phases first, then every track (tracks.go)
	}
	complete(st, r, o.Changed, now, acts)
}

// walk moves the rollout's phases up to end as far as the observations allow, and reports
// whether it got there (false: it waits, or it stopped or started rolling back).
func walk(st *state.State, p plan.Plan, o Observed, prevHold *state.WindowHold, end int, now time.Time, acts *[]Action) bool {
	r := st.Rollout
	for r.Phase < end && st.Paused == nil { // the engine's pause holds the rest of the pass
		if !walkPhase(st, p, o, prevHold, now, acts) {
			return false
		}
		r.Phase++
	}
	return st.Paused == nil
}

// walkPhase moves the rollout's current phase as far as the observations allow, and reports
// whether it succeeded (false: it waits, or it stopped or started rolling back).
func walkPhase(st *state.State, p plan.Plan, o Observed, prevHold *state.WindowHold, now time.Time, acts *[]Action) bool {
	r := st.Rollout
	ph, sp := &r.Phases[r.Phase], p.Phases[r.Phase]
	held, entered := enterPhase(st, p, o, prevHold, ph, sp, now, acts)
	if !entered {
		return false
	}
	done, failed := settle(r, ph, sp, o, now, acts) // before admit, so freed batch slots count
	if len(failed) > sp.MaxFailures && sp.OnFailure != "continue" {
		fail(st, p, ph, sp, failed, o, now, acts)
		return false
	}
	if budgetSpent(st, p, ph, sp, o, now, acts) {
		return false // the phases' tolerated failures add up to more than the rollout's budget
	}
	if !batchChecked(st, p, ph, sp, o, now, acts) {
		return false // batchChecks: the phase's checks on the last wave before the next
	}
	if !admitNext(r, prevHold, ph, sp, o, held, done, now, acts) {
		return false // waiting on children or a gate; the agent's watches bring it back
	}
	if !hookGate(st, p, ph, beforeSoak(sp), KindCheck, o, now, acts) || !soakGate(st, p, ph, sp, o, now, acts) || !hookGate(st, p, ph, sp, KindPost, o, now, acts) {
		return false // checks once every member is done, then the soak (and checks measured through it), then post-hooks
	}
	if !leaveApproved(r, ph, sp, now, acts) {
		return false // an approval after checks: the next phase waits for it
	}
	ph.Status = PhaseSucceeded
	emit(r, acts, now, EvPhaseSucceeded, "phase "+ph.Name+" succeeded")
	return true
}

// enterPhase passes the gates before a phase admits anyone: the failure budget, change
// windows, the phase's start and its pre-hooks, then asks the approval to enter. held is
// whether a window holds the phase's admissions; entered is false when the phase waits, or
// never starts.
func enterPhase(st *state.State, p plan.Plan, o Observed, prevHold *state.WindowHold, ph *state.PhaseState, sp spec.Phase, now time.Time, acts *[]Action) (held, entered bool) {
	r := st.Rollout
	if ph.Status == PhasePending && budgetSpent(st, p, ph, sp, o, now, acts) {
		return false, false // the earlier phases' tolerated failures spent the budget: this one never starts
	}
	held, all := windowGate(st, prevHold, p, o, ph, sp, now, acts)
	if all || (held && ph.Status == PhasePending) {
		return held, false // a window holds the phase's start (or, hold: all, the whole phase)
	}
	if ph.Status == PhasePending {
		startPhase(r, ph, sp, now, acts)
	}
	if !hookGate(st, p, ph, sp, KindPre, o, now, acts) {
		return held, false // pre-hooks run before anyone is admitted
	}
	// an approval to enter holds admission (nextAdmission)
	askEntry(r, ph, sp, now, acts)
	return held, true
}

// admitNext admits the phase's next batch, as far as windows let it, and reports whether the
// phase is through admitting: every member admitted and settled (done, as settle judged
// before this admission). While it is not, it asks to be woken at the progressDeadline.
func admitNext(r *state.Rollout, prevHold *state.WindowHold, ph *state.PhaseState, sp spec.Phase, o Observed, held, done bool, now time.Time, acts *[]Action) bool {
	b := batchOf(r, ph, sp)
	if sp.MatchAppLabels || sp.Throttle.Kind != spec.SizeAll {
		b.InFlight = inFlight(ph)
	}
	a := nextAdmission(b)
	if len(a.Next) > 0 && betweenBatches(ph, sp, b.InFlight, now, acts) {
		a.Next, a.Full = nil, false
	}
	if next := admissible(r, prevHold, ph, o, a.Next, held, now, acts); len(next) < len(a.Next) {
		a.Next, a.Full = next, false
	}
	if len(a.Next) > 0 {
		admit(ph, a.Next, now)
		startDeadline(ph, sp, now)
		ph.Override = "" // an override lets one admission through
		done = false
	}
	if !done || !a.Full {
		if !done && ph.DeadlineAt == nil && len(ph.Admitted) > 0 {
			startDeadline(ph, sp, now) // a phase admitted before the default existed
		}
		if !done && ph.DeadlineAt != nil {
			*acts = append(*acts, Action{Kind: ActRequeue, At: *ph.DeadlineAt, Message: "progressDeadline of phase " + ph.Name})
		}
		return false
	}
	return true
}

func startPhase(r *state.Rollout, ph *state.PhaseState, sp spec.Phase, now time.Time, acts *[]Action) {
	ph.Status, ph.StartedAt = PhaseAdmitting, &now
	emit(r, acts, now, EvPhaseStarted, fmt.Sprintf("phase %s started with %d members", ph.Name, len(ph.Members)))
}

// startDeadline starts the phase's progressDeadline at its first admission, not at its
// start: an approval to enter it (or RollingSync's maxUpdate: 0) may hold everyone for
// hours, and that wait is not the members' to settle in. A stated deadline counts from the
// first admission; the default from each (a later batch gets its own); "none" sets none.
func startDeadline(ph *state.PhaseState, sp spec.Phase, now time.Time) {
	limit := progressDeadline(sp)
	switch {
	case limit < 0:
	case ph.DeadlineAt == nil, sp.ProgressDeadline == 0 && ph.DeadlineAt.Before(now.Add(limit)):
		d := now.Add(limit)
		ph.DeadlineAt = &d
	}
}

// DefaultProgressDeadline bounds every wait of a phase's admitted members where the spec
// states no progressDeadline: a member whose sync never starts, keeps failing on transient
// errors, stays Progressing, or whose cluster is away is Errored this long after its
// admission, and onFailure applies. 10 minutes is Argo Rollouts' progressDeadlineSeconds
// (600 s); RollingSync's 300 s (applicationsetcontroller.default.application.progressing
// .timeout) only moves a Pending app on, deciding nothing, where ours ends in a verdict, so
// it leaves a slow cluster the longer time. A phase's soak, gates, approvals and windows are
// not bounded by it. progressDeadline: none waits without a bound, on purpose.
const DefaultProgressDeadline = 10 * time.Minute

// progressDeadline is the phase's progressDeadline, the default when unset, or negative
// (spec.NoDeadline) for none.
func progressDeadline(sp spec.Phase) time.Duration {
	if sp.ProgressDeadline != 0 {
		return sp.ProgressDeadline
	}
	return DefaultProgressDeadline
}

// deadlineText names the phase's progressDeadline for a reason: its value, and whether it
// is the default and how to change it.
func deadlineText(sp spec.Phase) string {
	if sp.ProgressDeadline > 0 {
		return sp.ProgressDeadline.String()
	}
	return DefaultProgressDeadline.String() + " (the default; set progressDeadline on the phase to change it)"
}

// admit admits the given members of ph, waiting on their first observation from now.
func admit(ph *state.PhaseState, next []string, now time.Time) {
	if ph.Clusters == nil {
		ph.Clusters = map[string]state.ClusterState{}
	}
	for _, c := range next {
		ph.Admitted = append(ph.Admitted, c)
		ph.Clusters[c] = state.ClusterState{Status: ClusterWaiting, Reason: "admitted", AdmittedAt: now}
	}
	slices.Sort(ph.Admitted)
}

// settle judges every child this phase admitted. done is true when every one has settled
// (Done, or Failed/Errored); failed lists the Failed and Errored ones. A member still
// waiting past the phase's progressDeadline is Errored, and one whose per-cluster check or
// post-hook failed is Failed (or Errored) however its sync went. Every failure is reported
// once, when it happens, whether or not the phase tolerates it.
func settle(r *state.Rollout, ph *state.PhaseState, sp spec.Phase, o Observed, now time.Time, acts *[]Action) (done bool, failed []string) {
	done = true
	for _, c := range ph.Admitted {
		cs := ph.Clusters[c]
		if slices.Contains(r.Skipped, c) {
			cs.Status, cs.Reason = state.ClusterSkipped, "skipped by a person: not judged"
			ph.Clusters[c] = cs
			continue
		}
		v, why := Waiting, "not observed yet"
		if obs, ok := o.Children[c]; ok {
			v, why = Settle(obs, r.Revision, cs.AdmittedAt)
			v, why = retryTransient(c, obs, r.Revision, cs.AdmittedAt, ph.DeadlineAt, now, v, why, acts)
		}
		if v == Waiting && ph.DeadlineAt != nil && !now.Before(*ph.DeadlineAt) {
			v, why = Errored, "did not settle within the phase's progressDeadline "+deadlineText(sp)+": "+why
		}
		v, why = hookVerdict(ph, sp, c, v, why)
		was := cs.Status
		cs.Status, cs.Reason = v.Status(), why
		ph.Clusters[c] = cs
		switch {
		case v == Waiting:
			done = false
		case cs.Status.Failure():
			failed = append(failed, c)
			if was != cs.Status {
				emit(r, acts, now, EvClusterFailed, fmt.Sprintf("phase %s: %s %s: %s", ph.Name, c, cs.Status, why))
			}
		}
	}
	return done, failed
}

// soaked holds a phase whose children are all done for its waitDuration, kept in state as a
// deadline; a child that stops being done resets nothing here but fails settle next pass.
func soaked(r *state.Rollout, ph *state.PhaseState, sp spec.Phase, now time.Time, acts *[]Action) bool {
	if sp.WaitDuration <= 0 || len(ph.Admitted) == 0 {
		return true
	}
	if ph.SoakUntil == nil {
		until := now.Add(sp.WaitDuration)
		ph.SoakUntil, ph.Status = &until, PhaseSoaking
		emit(r, acts, now, EvPhaseSoaking, fmt.Sprintf("phase %s soaking until %s", ph.Name, until.UTC().Format(time.RFC3339)))
	}
	if now.Before(*ph.SoakUntil) {
		*acts = append(*acts, Action{Kind: ActRequeue, At: *ph.SoakUntil, Message: "soak of phase " + ph.Name})
		return false
	}
	return true
}

// fail applies onFailure to members that failed or errored.
func fail(st *state.State, p plan.Plan, ph *state.PhaseState, sp spec.Phase, failed []string, o Observed, now time.Time, acts *[]Action) {
	status := PhaseErrored
	for _, c := range failed {
		if ph.Clusters[c].Status == ClusterFailed {
			status = PhaseFailed // a gate said no; Errored only when we could not tell
		}
	}
	reason := fmt.Sprintf("phase %s %s: %s: %s", ph.Name, status, describe(failed), ph.Clusters[failed[0]].Reason)
	if sp.MaxFailures > 0 {
		reason += fmt.Sprintf(" (%d failures, maxFailures %d)", len(failed), sp.MaxFailures)
	}
	stopOrRollBack(st, p, ph, sp, status, reason, o, now, acts)
}

// stopOrRollBack ends a failed phase: onFailure rollback returns the admitted children
// (rollBack); stop, or a first deployment with nothing to return to, stops where it is.
func stopOrRollBack(st *state.State, p plan.Plan, ph *state.PhaseState, sp spec.Phase, status state.PhaseStatus, reason string, o Observed, now time.Time, acts *[]Action) {
	r := st.Rollout
	markFailed(ph, status, now)
	r.Status, r.Reason = StatusStopped, reason
	switch {
	case sp.OnFailure == "rollback" && st.Deployed != "":
		r.Status = StatusRollingBack
		emit(r, acts, now, EvRollingBack, "rolling back: "+r.Reason)
		rollBack(st, p, o, now, acts)
		return
	case sp.OnFailure == "rollback":
		r.Reason += " (nothing to roll back to on a first deployment: stopped)"
	}
	emit(r, acts, now, EvRolloutStopped, "rollout stopped: "+r.Reason)
}
