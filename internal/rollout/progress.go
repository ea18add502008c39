package rollout

import (
	"fmt"
	"slices"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// progress moves the active rollout as far as the observations allow on this pass.
func progress(st *state.State, p Plan, o Observed, now time.Time, acts *[]Action) {
	r := st.Rollout
	for r.Phase < len(r.Phases) {
		ph, sp := &r.Phases[r.Phase], p.Phases[r.Phase]
		if ph.Status == PhasePending {
			ph.Status, ph.StartedAt = PhaseAdmitting, &now
			*acts = append(*acts, Action{Kind: ActEvent, Reason: fmt.Sprintf("phase %s started with %d members", ph.Name, len(ph.Members))})
		}
		done, failed := settle(r, ph, o) // first, so freed batch slots count
		if len(failed) > 0 && sp.OnFailure != "continue" {
			fail(st, ph, sp, failed, acts)
			if r.Status == StatusRollingBack {
				rollBack(st, o, now, acts)
			}
			return
		}
		if admit(r, ph, sp, now) > 0 {
			done = false
		}
		if !done || admittedMembers(r, ph) < Count(sizeOf(sp), len(ph.Members)) || gated(sp, ph) {
			return // waiting on children or a gate; the agent's watches bring it back
		}
		if !soaked(ph, sp, now, acts) {
			return
		}
		ph.Status = PhaseSucceeded
		*acts = append(*acts, Action{Kind: ActEvent, Reason: "phase " + ph.Name + " succeeded"})
		r.Phase++
	}
	complete(st, r, o.Changed, acts)
}

// sizeOf is how many of a phase's members must be admitted before it can end: everyone for
// RollingSync steps (maxUpdate only throttles), the size for phaseDeployment.
func sizeOf(sp spec.Phase) spec.Size {
	if sp.MatchAppLabels {
		return spec.Size{Kind: spec.SizeAll}
	}
	return sp.Size
}

// admittedMembers counts the phase's members admitted by it or an earlier phase
// (phaseDeployment admission is cumulative across phases sharing targets).
func admittedMembers(r *state.Rollout, ph *state.PhaseState) int {
	all, n := admittedSet(r), 0
	for _, m := range ph.Members {
		if all[m] {
			n++
		}
	}
	return n
}

// gated reports a manual gate that still holds members back (approval is issue 6's).
func gated(sp spec.Phase, ph *state.PhaseState) bool {
	return sp.Size.Gate && len(ph.Admitted) < len(ph.Members)
}

// admit admits the next members: cumulatively for phaseDeployment, in batches of at most
// maxUpdate in flight for RollingSync steps.
func admit(r *state.Rollout, ph *state.PhaseState, sp spec.Phase, now time.Time) int {
	var next []string
	if sp.MatchAppLabels {
		started, updating := map[string]bool{}, 0
		for _, c := range ph.Admitted {
			started[c] = true
			if ph.Clusters[c].Status != ClusterDone {
				updating++
			}
		}
		next = NextBatch(sp.Size, ph.Members, started, updating)
	} else {
		next = ToAdmit(sp.Size, ph.Members, admittedSet(r))
	}
	if len(next) == 0 {
		return 0
	}
	if ph.Clusters == nil {
		ph.Clusters = map[string]state.ClusterState{}
	}
	for _, c := range next {
		ph.Admitted = append(ph.Admitted, c)
		ph.Clusters[c] = state.ClusterState{Status: ClusterWaiting, Reason: "admitted", AdmittedAt: now}
	}
	slices.Sort(ph.Admitted)
	return len(next)
}

// settle judges every child this phase admitted; done is true when all are Done (or Failed
// under onFailure: continue, which the caller checks).
func settle(r *state.Rollout, ph *state.PhaseState, o Observed) (done bool, failed []string) {
	done = true
	for _, c := range ph.Admitted {
		cs := ph.Clusters[c]
		v, why := Waiting, "not observed yet"
		if obs, ok := o.Children[c]; ok {
			v, why = Settle(obs, r.Revision, cs.AdmittedAt)
		}
		cs.Status, cs.Reason = [...]string{ClusterWaiting, ClusterDone, ClusterFailed}[v], why
		ph.Clusters[c] = cs
		switch v {
		case Failed:
			failed = append(failed, c)
		case Waiting:
			done = false
		}
	}
	return done, failed
}

// soaked holds a phase whose children are all done for its waitDuration, kept in state as a
// deadline; a child that stops being done resets nothing here but fails settle next pass.
func soaked(ph *state.PhaseState, sp spec.Phase, now time.Time, acts *[]Action) bool {
	if sp.WaitDuration <= 0 || len(ph.Admitted) == 0 {
		return true
	}
	if ph.SoakUntil == nil {
		until := now.Add(sp.WaitDuration)
		ph.SoakUntil, ph.Status = &until, PhaseSoaking
	}
	if now.Before(*ph.SoakUntil) {
		*acts = append(*acts, Action{Kind: ActRequeue, At: *ph.SoakUntil, Reason: "soak of phase " + ph.Name})
		return false
	}
	return true
}

// fail applies onFailure: stop ends the rollout where it is; rollback returns the admitted
// children (rollBack). A first deployment has nothing to return to, so it stops.
func fail(st *state.State, ph *state.PhaseState, sp spec.Phase, failed []string, acts *[]Action) {
	r := st.Rollout
	ph.Status = PhaseFailed
	r.Status = StatusStopped
	r.Reason = fmt.Sprintf("phase %s: %s failed: %s", ph.Name, describe(failed), ph.Clusters[failed[0]].Reason)
	switch {
	case sp.OnFailure == "rollback" && st.Deployed != "":
		r.Status = StatusRollingBack
		*acts = append(*acts, Action{Kind: ActEvent, Reason: "rolling back: " + r.Reason})
		return
	case sp.OnFailure == "rollback":
		r.Reason += " (nothing to roll back to on a first deployment: stopped)"
	}
	*acts = append(*acts, Action{Kind: ActEvent, Reason: "rollout stopped: " + r.Reason})
}

// complete makes the rollout's revision the deployed one. A child that did not take part
// moves with the default only when it is known to render the same at the new revision;
// every other one (changed, or not generated by the new revision at all, e.g. its cluster
// is missing from the inventory right now) stays where it is, pinned. Revisions nobody runs
// any more are dropped.
func complete(st *state.State, r *state.Rollout, changed map[string]bool, acts *[]Action) {
	old := st.Deployed
	admitted := admittedSet(r)
	for _, c := range st.Children {
		same, known := changed[c]
		same = known && !same
		if _, pinned := st.Pinned[c]; !pinned && !admitted[c] && !same && old != "" && old != r.Revision {
			if st.Pinned == nil {
				st.Pinned = map[string]string{}
			}
			st.Pinned[c] = old // it did not move: keep it where it is
		}
	}
	for c := range admitted {
		delete(st.Pinned, c)
		addChild(st, c)
	}
	st.Deployed, r.Status = r.Revision, StatusCompleted
	keep := map[string]bool{st.Deployed: true}
	for _, rev := range st.Pinned {
		keep[rev] = true
	}
	for id := range st.Revisions {
		if !keep[id] {
			delete(st.Revisions, id)
		}
	}
	*acts = append(*acts, Action{Kind: ActEvent, Reason: "rollout of revision " + r.Revision + " completed"})
}
