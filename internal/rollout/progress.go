package rollout

import (
	"fmt"
	"slices"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// progress moves the active rollout as far as the observations allow on this pass.
func (ps *pass) progress() {
	r := ps.st.Rollout
	ps.joiners()
	prevHold := r.Window
	r.Window = nil // set again below while a window holds
	if !ps.walk(prevHold, r.Split()) || len(r.Tracks) > 0 && !ps.walkTracks() {
		return // waiting; with tracks, the shared phases first, then every track (tracks.go)
	}
	ps.complete()
}

// walk moves the rollout's phases up to end as far as the observations allow, and reports
// whether it got there (false: it waits, or it stopped or started rolling back).
func (ps *pass) walk(prevHold *state.WindowHold, end int) bool {
	st := ps.st
	r := st.Rollout
	for r.Phase < end && st.Paused == nil { // the engine's pause holds the rest of the pass
		if !ps.walkPhase(prevHold) {
			return false
		}
		r.Phase++
	}
	return st.Paused == nil
}

// walkPhase moves the rollout's current phase as far as the observations allow, and reports
// whether it succeeded (false: it waits, or it stopped or started rolling back).
func (ps *pass) walkPhase(prevHold *state.WindowHold) bool {
	r := ps.st.Rollout
	ph, sp := &r.Phases[r.Phase], ps.p.Phases[r.Phase]
	held, entered := ps.enterPhase(prevHold, ph, sp)
	if !entered {
		return false
	}
	done, failed := ps.settle(ph, sp) // before admit, so freed batch slots count
	if len(failed) > sp.MaxFailures && sp.OnFailure != "continue" {
		ps.fail(ph, sp, failed)
		return false
	}
	if ps.budgetSpent(ph, sp) {
		return false // the phases' tolerated failures add up to more than the rollout's budget
	}
	if !ps.batchChecked(ph, sp) {
		return false // batchChecks: the phase's checks on the last wave before the next
	}
	if !ps.admitNext(prevHold, ph, sp, held, done) {
		return false // waiting on children or a gate; the agent's watches bring it back
	}
	if !ps.hookGate(ph, beforeSoak(sp), KindCheck) || !ps.soakGate(ph, sp) || !ps.hookGate(ph, sp, KindPost) {
		return false // checks once every member is done, then the soak (and checks measured through it), then post-hooks
	}
	if !ps.leaveApproved(ph, sp) {
		return false // an approval after checks: the next phase waits for it
	}
	ph.Status = PhaseSucceeded
	ps.emit(r, EvPhaseSucceeded, "phase "+ph.Name+" succeeded")
	return true
}

// enterPhase passes the gates before a phase admits anyone: the failure budget, change
// windows, the phase's start and its pre-hooks, then asks the approval to enter. held is
// whether a window holds the phase's admissions; entered is false when the phase waits, or
// never starts.
func (ps *pass) enterPhase(prevHold *state.WindowHold, ph *state.PhaseState, sp spec.Phase) (held, entered bool) {
	if ph.Status == PhasePending && ps.budgetSpent(ph, sp) {
		return false, false // the earlier phases' tolerated failures spent the budget: this one never starts
	}
	held, all := ps.windowGate(prevHold, ph, sp)
	if all || (held && ph.Status == PhasePending) {
		return held, false // a window holds the phase's start (or, hold: all, the whole phase)
	}
	if ph.Status == PhasePending {
		ps.startPhase(ph)
	}
	if !ps.hookGate(ph, sp, KindPre) {
		return held, false // pre-hooks run before anyone is admitted
	}
	// an approval to enter holds admission (nextAdmission)
	ps.askEntry(ph, sp)
	return held, true
}

// admitNext admits the phase's next batch, as far as windows let it, and reports whether the
// phase is through admitting: every member admitted and settled (done, as settle judged
// before this admission). While it is not, it asks to be woken at the progressDeadline.
func (ps *pass) admitNext(prevHold *state.WindowHold, ph *state.PhaseState, sp spec.Phase, held, done bool) bool {
	now := ps.now
	b := batchOf(ps.st.Rollout, ph, sp)
	if sp.MatchAppLabels || sp.Throttle.Kind != spec.SizeAll {
		b.InFlight = inFlight(ph)
	}
	a := nextAdmission(b)
	if len(a.Next) > 0 && ps.betweenBatches(ph, sp, b.InFlight) {
		a.Next, a.Full = nil, false
	}
	if next := ps.admissible(prevHold, ph, a.Next, held); len(next) < len(a.Next) {
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
			ps.requeue(*ph.DeadlineAt, "progressDeadline of phase "+ph.Name)
		}
		return false
	}
	return true
}

func (ps *pass) startPhase(ph *state.PhaseState) {
	now := ps.now
	ph.Status, ph.StartedAt = PhaseAdmitting, &now
	ps.emit(ps.st.Rollout, EvPhaseStarted, fmt.Sprintf("phase %s started with %d members", ph.Name, len(ph.Members)))
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
func (ps *pass) settle(ph *state.PhaseState, sp spec.Phase) (done bool, failed []string) {
	r, now := ps.st.Rollout, ps.now
	done = true
	for _, c := range ph.Admitted {
		cs := ph.Clusters[c]
		if slices.Contains(r.Skipped, c) {
			cs.Status, cs.Reason = state.ClusterSkipped, "skipped by a person: not judged"
			ph.Clusters[c] = cs
			continue
		}
		v, why := Waiting, "not observed yet"
		if obs, ok := ps.o.Children[c]; ok {
			if v, why = Settle(obs, r.Revision, cs.AdmittedAt); v == Waiting {
				ps.retryTransient(c, obs, r.Revision, cs.AdmittedAt, ph.DeadlineAt)
			}
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
				ps.emit(r, EvClusterFailed, fmt.Sprintf("phase %s: %s %s: %s", ph.Name, c, cs.Status, why))
			}
		}
	}
	return done, failed
}

// soaked holds a phase whose children are all done for its waitDuration, kept in state as a
// deadline; a child that stops being done resets nothing here but fails settle next pass.
func (ps *pass) soaked(ph *state.PhaseState, sp spec.Phase) bool {
	r, now := ps.st.Rollout, ps.now
	if sp.WaitDuration <= 0 || len(ph.Admitted) == 0 {
		return true
	}
	if ph.SoakUntil == nil {
		until := now.Add(sp.WaitDuration)
		ph.SoakUntil, ph.Status = &until, PhaseSoaking
		ps.emit(r, EvPhaseSoaking, fmt.Sprintf("phase %s soaking until %s", ph.Name, until.UTC().Format(time.RFC3339)))
	}
	if now.Before(*ph.SoakUntil) {
		ps.requeue(*ph.SoakUntil, "soak of phase "+ph.Name)
		return false
	}
	return true
}

// fail applies onFailure to members that failed or errored.
func (ps *pass) fail(ph *state.PhaseState, sp spec.Phase, failed []string) {
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
	ps.stopOrRollBack(ph, sp, status, reason)
}

// stopOrRollBack ends a failed phase: onFailure rollback returns the admitted children
// (rollBack); stop, or a first deployment with nothing to return to, stops where it is.
func (ps *pass) stopOrRollBack(ph *state.PhaseState, sp spec.Phase, status state.PhaseStatus, reason string) {
	st := ps.st
	r := st.Rollout
	markFailed(ph, status, ps.now)
	r.Status, r.Reason = StatusStopped, reason
	switch {
	case sp.OnFailure == "rollback" && st.Deployed != "":
		r.Status = StatusRollingBack
		ps.emit(r, EvRollingBack, "rolling back: "+r.Reason)
		ps.rollBack()
		return
	case sp.OnFailure == "rollback":
		r.Reason += " (nothing to roll back to on a first deployment: stopped)"
	}
	ps.emit(r, EvRolloutStopped, "rollout stopped: "+r.Reason)
}
