package rollout

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// DismantlePoll is how soon a pass that removes children looks again while children are
// still being deleted (their deletes wake it too).
const DismantlePoll = 5 * time.Second

// ParentBusy and SubjectsMissing are the evidence a removal waits on; they are fields of
// Observed: an operation of the parent requested or running (Argo CD runs it even on a
// parent being deleted, and it would apply the children again behind the order) or one
// that may still come (Argo CD has not taken the parent's delete yet), and no
// subjects to place the children the last rollout did not admit (no inventory yet, or the
// plan does not render).

// dismantle is Decide for a rollout whose children all go (a deleted parent, or a spec gone
// from git that a person confirmed: cur.RemovedRevision): the next group in the deletion
// order while live children are left, then the state that deploys nothing, with the
// parent released (Release).
func dismantle(p plan.Plan, cur *state.State, o Observed, now time.Time) Decision {
	d, how := Decision{Next: cur, Dismantling: true}, o.Dismantle
	if how.Hold != "" {
		return d.wait(now, "children wait: "+how.Hold)
	}
	if how.Removal && (cur == nil || cur.Paused != nil || o.Controls != nil && o.Controls.Fleet != nil) {
		return d // a pause and the fleet-wide stop hold it, also for a rollout rolling back
	}
	live := slices.Sorted(maps.Keys(o.Children))
	if len(live) == 0 {
		next, acts, running := afterDismantle(p, cur, o, now)
		d.Actions = acts
		if running {
			d.Next = next
			return d.wait(now, "post-delete hooks run")
		}
		cur = next
		d.Next, acts = TornDown(cur, how.How, now)
		d.Actions = append(d.Actions, acts...)
		d.Release = !how.Removal
		d.SetPhaseGen = how.Removal && d.Next != cur // the parent re-renders, now to nothing
		return d
	}
	if o.ParentBusy {
		return d.wait(now, "children wait for the parent's operation to end and Argo CD to take its delete")
	}
	if o.SubjectsMissing && p.DeletionOrder != spec.DeletionAllAtOnce && !allAdmitted(cur, live) {
		// Without them the children the last rollout did not admit have no phase, and would
		// all go in one group, ahead of the order: wait for the inventory and the plan.
		return d.wait(now, "children wait to be placed in their phases")
	}
	d.Delete, _ = Teardown(cur, p, o.Subjects, live)
	d.DeleteWhy = "the parent is deleted"
	if how.Removal {
		d.DeleteWhy = "the rollout's spec is gone from git"
	}
	return d.wait(now, fmt.Sprintf("%d children left to remove", len(live)))
}

// wait is d coming back after DismantlePoll, saying why.
func (d Decision) wait(now time.Time, why string) Decision {
	d.Actions = append(d.Actions, Action{Kind: ActRequeue, At: now.Add(DismantlePoll), Message: why})
	return d
}

// allAdmitted reports whether the last rollout admitted every one of children (each has the
// phase it was admitted in).
func allAdmitted(st *state.State, children []string) bool {
	var admitted map[string]string
	if st != nil {
		admitted = st.Rollout.AdmittedPhases()
	}
	for _, c := range children {
		if admitted[c] == "" {
			return false
		}
	}
	return true
}

// afterDismantle runs the post-delete hooks once every child of the rollout is gone: each
// per-cluster hook for each child the state had, the others once. It returns the state
// with their ledger (cur itself when nothing changed; a change has the next generation)
// and whether some still run: the teardown (and a deleted parent's release) waits for them;
// and the actions they ask for.
func afterDismantle(p plan.Plan, cur *state.State, o Observed, now time.Time) (*state.State, []Action, bool) {
	if cur == nil || (len(p.PostDeleteHooks) == 0 && len(cur.AfterDelete) == 0) {
		return cur, nil, false
	}
	next := cur.Clone()
	ps := &pass{st: next, p: p, o: o, now: now}
	if tearing := len(cur.Children) > 0 || len(cur.Removing) > 0 || len(cur.Leaving) > 0 || cur.Rollout.Active(); tearing {
		// only a teardown still to record starts them: once torn down, a removal's later
		// passes only record the runs still going (their ledger may be trimmed meanwhile)
		children := slices.Concat(cur.Children, cur.Removing, cur.Leaving)
		if cur.Rollout.Active() {
			children = slices.Concat(children, slices.Collect(maps.Keys(cur.Rollout.AdmittedPhases())))
		}
		names := clusterNames(o.Subjects, children)
		gone := map[string]string{}
		for _, c := range children {
			gone[c] = cmp.Or(names[c], cur.RemovingClusters[c])
		}
		ps.startAfterDelete(gone, true, false)
	}
	running := ps.driveAfterDelete()
	if state.Equal(cur, next) {
		return cur, ps.acts, running
	}
	next.Generation++
	next.WrittenAt = now
	return next, ps.acts, running
}
