package rollout

import (
	"fmt"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// EvRolloutReplanned: the plan's phases changed while a rollout of the same revision ran
// (deploymentStrategy removed, phases edited): its current phase finishes, then the new
// phases take the children still to move.
const EvRolloutReplanned = "RolloutReplanned"

// linedUp reports whether the plan's phases are the rollout's, index for index (a split
// rollout's once withTracks lined them up): the phases a running rollout was lined up with
// may change at the same revision, since phases are not part of it.
func linedUp(r *state.Rollout, p plan.Plan) bool {
	if r == nil || len(p.Phases) != len(r.Phases) {
		return false
	}
	for i := range r.Phases {
		if r.Phases[i].Name != p.Phases[i].Name {
			return false
		}
	}
	return true
}

// replan carries on a rollout whose plan's phases are no longer its own (linedUp is false)
// at the same revision — seed 000's downgrade: "in-progress phased deployments complete
// current phase before reverting". Its current phase (each track's) finishes: nobody more
// is admitted (the phase's spec is gone with the old plan), its admitted children settle
// on the revision within the default progressDeadline, and its hooks still to run are not
// run. Once they have, a rollout of the same revision with the new phases takes the
// children still to move (those settled on it stay, and the finished rollout's are pinned
// where they are until then); a child that failed stops the rollout instead, for a person
// to decide (a new commit, or rollback).
func (ps *pass) replan() error {
	st, p, now := ps.st, ps.p, ps.now
	r := st.Rollout
	if !slices.ContainsFunc(r.History, func(e state.Entry) bool { return e.Event == EvRolloutReplanned }) {
		ps.emit(r, EvRolloutReplanned, fmt.Sprintf("the phases changed while the rollout of revision %s ran: %s finishes, then the new phases (%d) take over",
			r.Revision, currentNames(r), len(p.Phases)))
	}
	var failed []string
	for _, i := range r.Current() {
		ph := &r.Phases[i]
		if ph.DeadlineAt == nil && ph.StartedAt != nil {
			d := ph.StartedAt.Add(DefaultProgressDeadline)
			ph.DeadlineAt = &d
		}
		done, f := ps.settle(ph, spec.Phase{Name: ph.Name, OnFailure: "stop"})
		if !done {
			if ph.DeadlineAt != nil {
				ps.requeue(*ph.DeadlineAt, "progressDeadline of replanned phase "+ph.Name)
			}
			return nil
		}
		failed = append(failed, f...)
	}
	if len(failed) > 0 {
		for _, i := range r.Current() {
			markFailed(&r.Phases[i], PhaseFailed, now) // its failure hooks run
		}
		r.Status = StatusStopped
		r.Reason = fmt.Sprintf("the phases changed mid-rollout and phase %s finished with %s failed; nobody else moves (fix: repair them and commit, or write rollback)", currentNames(r), describe(failed))
		ps.emit(r, EvRolloutStopped, "rollout stopped: "+r.Reason)
		return nil
	}
	old := r
	if err := ps.start(nil); err != nil {
		return err
	}
	carry(st, old)
	return nil
}

// carry makes the children the replaced rollout admitted admitted members of the new
// rollout's first phase, Done, instead of pinned at the revision both share: a rollback of
// the new rollout then returns them too, and its completion unpins them as its own.
func carry(st *state.State, old *state.Rollout) {
	r := st.Rollout
	if r == nil || len(r.Phases) == 0 || r.Revision != old.Revision {
		return
	}
	first := &r.Phases[0]
	for _, ph := range old.Phases {
		for _, c := range ph.Admitted {
			if st.Pinned[c] != old.Revision || slices.Contains(first.Admitted, c) {
				continue
			}
			delete(st.Pinned, c)
			cs := ph.Clusters[c]
			first.Members = append(first.Members, c)
			first.Admitted = append(first.Admitted, c)
			if first.Clusters == nil {
				first.Clusters = map[string]state.ClusterState{}
			}
			first.Clusters[c] = state.ClusterState{Status: ClusterDone, Reason: "carried over from the phases it replaced (" + ph.Name + ")", AdmittedAt: cs.AdmittedAt, SettledAt: cs.SettledAt}
		}
	}
	slices.Sort(first.Members)
	slices.Sort(first.Admitted)
	if len(st.Pinned) == 0 {
		st.Pinned = nil
	}
}

// currentNames names the rollout's current phases (each track's), for a message.
func currentNames(r *state.Rollout) string {
	var names []string
	for _, i := range r.Current() {
		names = append(names, r.Phases[i].Name)
	}
	slices.Sort(names)
	return describe(slices.Compact(names))
}
