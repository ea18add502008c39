package rollout

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// idle handles a state whose deployed revision is the plan's, with no rollout running.
// Children that left the fleet are removed first, in reverse phase order; then children
// that are not deployed yet (clusters that joined since, e.g. deferred late joiners) get a
// catch-up rollout of the same revision, through every phase, gates and soaks
// included. Members a rollout left behind on purpose (a phase smaller than its targets)
// stay where they are.
func (ps *pass) idle() error {
	st, p, o := ps.st, ps.p, ps.o
	held := len(st.Removing) == 0 && ps.removalsHeld() // no removal group starts
	if !held && ps.remove() {
		return nil
	}
	catchUp := map[string]bool{}
	for _, s := range changedSubjects(st, o) {
		if _, deployed := slices.BinarySearch(st.Children, s.Key); !deployed && eligible(p.Phases, s) {
			catchUp[s.Key] = true
		}
	}
	if len(catchUp) == 0 {
		return nil
	}
	return ps.start(catchUp)
}

// eligible reports whether any phase selects the subject: one no phase selects never takes
// part in a rollout (and must not start catch-ups forever).
func eligible(phases []spec.Phase, s targets.Child) bool {
	for _, ph := range phases {
		if ok, err := selects(ph, s); err == nil && ok {
			return true
		}
	}
	return false
}

// joiners applies the late-joiner policy to children not deployed yet that the running
// rollout has not considered (a deployed cluster whose labels change mid-rollout waits for
// the next rollout): join makes one a member of the first phase that selects it and has not
// started (RollingSync steps: only the first step that selects it); otherwise it is
// deferred to a catch-up rollout.
func (ps *pass) joiners() {
	st, p, o := ps.st, ps.p, ps.o
	r := st.Rollout
	known := map[string]bool{}
	for _, ph := range r.Phases {
		for _, m := range ph.Members {
			known[m] = true
		}
	}
	for _, d := range r.Deferred {
		known[d] = true
	}
	for _, s := range changedSubjects(st, o) {
		_, deployed := slices.BinarySearch(st.Children, s.Key)
		if deployed || known[s.Key] || !eligible(p.Phases, s) {
			continue
		}
		if i := joinPhase(p, r, s); i >= 0 {
			ph := &r.Phases[i]
			ph.Members = joinMembers(ph.Members, s.Key, p.Phases[i].Ordering.IsZero())
			ps.emit(r, EvClusterJoined, fmt.Sprintf("%s joined the rollout in phase %s (lateJoiners: join)", s.Key, ph.Name))
			continue
		}
		at, _ := slices.BinarySearch(r.Deferred, s.Key)
		r.Deferred = slices.Insert(r.Deferred, at, s.Key)
		ps.emit(r, EvClusterDeferred, fmt.Sprintf("%s joined after the rollout started: deferred to a catch-up rollout once this one completes", s.Key))
	}
}

// joinPhase is the phase a late joiner joins under policy join, or -1.
func joinPhase(p plan.Plan, r *state.Rollout, s targets.Child) int {
	if p.LateJoiners != spec.LateJoinersJoin || len(r.Tracks) > 0 {
		return -1 // with tracks a late joiner waits for the catch-up rollout
	}
	for i, sp := range p.Phases {
		if ok, err := selects(sp, s); err != nil || !ok {
			continue
		}
		if i >= r.Phase && r.Phases[i].Status == PhasePending {
			return i
		}
		if sp.MatchAppLabels {
			return -1 // a step takes a child only in the first step that selects it
		}
	}
	return -1
}

// remove drives the removal of children that left the fleet (the deployed revision no
// longer generates them), one phase group at a time in reverse phase order: the group is
// marked Removing (the renderer stops rendering it), the agent deletes the children, and
// when they are gone the next group starts. It reports whether a removal is under way.
// Nothing is removed while the plan generates no child at all (an empty or unreadable
// inventory is never a reason to delete).
func (ps *pass) remove() bool {
	st, p, o := ps.st, ps.p, ps.o
	if len(st.Removing) > 0 && ps.removing() {
		return true
	}
	prev := st.Leaving
	st.Leaving = nil
	if len(o.Subjects) == 0 {
		return false
	}
	group, rest := leavingGroup(st, p, o)
	if len(group) == 0 {
		return false
	}
	if p.ConfirmRemoval && !ps.confirm(group, rest) {
		ps.awaitConfirmation(prev, append(group, rest...))
		return true
	}
	st.Removing, st.Leaving = group, rest // the agent deletes what Removing lists
	if len(p.PostDeleteHooks) > 0 {
		noteClusters(st, group, o) // for their post-delete hooks, once they are gone
	}
	ps.emit(st.Rollout, EvClusterRemoving, "removing "+describe(group)+": the deployed revision no longer generates them")
	return true
}

// recordLeavers records in Leaving, while a hold keeps remove from running, the deployed
// children the plan no longer generates, so a render may leave them out: a shard's render
// fails on a child it cannot generate and no removal names, which would keep the hold
// forever. Nothing starts to be deleted (Removing is unchanged: remove decides the group
// once the hold ends); under confirmRemoval the wait is told as remove tells it. Nothing
// is recorded while the plan generates no child at all.
func (ps *pass) recordLeavers() {
	st, p, o := ps.st, ps.p, ps.o
	if len(o.Subjects) == 0 {
		return
	}
	group, rest := leavingGroup(st, p, o)
	leaving := slices.DeleteFunc(slices.Sorted(slices.Values(append(group, rest...))), func(c string) bool { return slices.Contains(st.Removing, c) })
	if p.ConfirmRemoval && len(leaving) > 0 {
		ps.awaitConfirmation(st.Leaving, leaving)
		return
	}
	if len(leaving) == 0 {
		leaving = nil
	}
	st.Leaving = leaving
}

// removing carries on the removal of the group in st.Removing: children deleted are
// forgotten, children generated again stay; it reports whether some are still to go.
// Children that leave meanwhile wait their turn, but the render must know of them now.
func (ps *pass) removing() bool {
	st, p, o := ps.st, ps.p, ps.o
	generated := map[string]bool{}
	for _, s := range o.Subjects {
		generated[s.Key] = true
	}
	var still []string
	for _, c := range st.Removing {
		if generated[c] { // its cluster came back before the delete: it stays
			ps.emit(st.Rollout, EvClusterReturned, c+" is generated again: not removed")
			continue
		}
		if _, live := o.Children[c]; live {
			still = append(still, c)
			continue
		}
		forget(st, c)
		ps.emit(st.Rollout, EvClusterRemoved, c+" removed")
		ps.startAfterDelete(map[string]string{c: st.RemovingClusters[c]}, false, true)
	}
	if st.Removing = still; len(still) == 0 {
		return false
	}
	group, rest := leavingGroup(st, p, o)
	st.Leaving = slices.DeleteFunc(slices.Sorted(slices.Values(append(group, rest...))), func(c string) bool { return slices.Contains(still, c) })
	if len(st.Leaving) == 0 {
		st.Leaving = nil
	}
	return true
}

// confirm reports whether a person confirmed the removal of every child of the group,
// before (st.Confirmed) or now: a confirm-removal key records the leaving children it names
// ("all": every one) and is consumed.
func (ps *pass) confirm(group, rest []string) bool {
	st, c := ps.st, ps.o.Controls
	if c != nil && len(c.ConfirmRemoval) > 0 {
		for _, l := range append(slices.Clone(group), rest...) {
			if (slices.Contains(c.ConfirmRemoval, "all") || slices.Contains(c.ConfirmRemoval, l)) && !slices.Contains(st.Confirmed, l) {
				st.Confirmed = append(st.Confirmed, l)
			}
		}
		slices.Sort(st.Confirmed)
		ps.consume(contract.ConfirmRemovalKey)
		leaving := append(slices.Clone(group), rest...)
		st.Confirmed = slices.DeleteFunc(st.Confirmed, func(x string) bool { return !slices.Contains(leaving, x) }) // came back: forget
		ps.emit(st.Rollout, EvControlApplied, "removal of "+strings.Join(c.ConfirmRemoval, ", ")+" confirmed by "+who(c))
	}
	return !slices.ContainsFunc(group, func(g string) bool { return !slices.Contains(st.Confirmed, g) })
}

// awaitConfirmation holds a removal for a person (confirmRemoval): the leaving children are
// recorded so the render may leave them out, nothing is deleted, and people are told once.
func (ps *pass) awaitConfirmation(prev, leaving []string) {
	st := ps.st
	all := slices.Sorted(slices.Values(leaving))
	if !slices.Equal(prev, all) {
		ps.emit(st.Rollout, EvRemovalAwaitsConfirmation, "removing "+describe(all)+" waits for a person (confirmRemoval): write confirm-removal: all, or the children, in the state ConfigMap")
	}
	st.Leaving = all
}

// leavingGroup is the first group to remove of the deployed children the deployed revision
// no longer generates, and the rest of them (sorted), which leave after it (see
// removalGroups for the order).
func leavingGroup(st *state.State, p plan.Plan, o Observed) (group, rest []string) {
	generated := map[string]bool{}
	for _, s := range o.Subjects {
		generated[s.Key] = true
	}
	var leaving []string
	for _, c := range st.Children {
		if !generated[c] && st.Pinned[c] == "" {
			leaving = append(leaving, c)
		}
	}
	return removalGroups(st, p, leaving, nil)
}

// removalGroups splits children to remove into the group that goes first and the rest
// (sorted), as the plan's deletionOrder says: AllAtOnce, every one at once; Reverse, the
// latest phase's group first. A child's phase is the one the last rollout admitted it in,
// else the first phase that selects its subject (when the plan still generates it), else it
// counts as in the last phase (removed first).
func removalGroups(st *state.State, p plan.Plan, children []string, subjects map[string]targets.Child) (group, rest []string) {
	if len(children) == 0 {
		return nil, nil
	}
	if p.DeletionOrder == spec.DeletionAllAtOnce {
		return slices.Sorted(slices.Values(children)), nil
	}
	index := map[string]int{}
	for i, ph := range p.Phases {
		index[ph.Name] = i
	}
	var phaseOf map[string]string
	if st != nil {
		phaseOf = st.Rollout.AdmittedPhases()
	}
	groups := map[int][]string{}
	latest := -1
	for _, c := range children {
		i, ok := index[phaseOf[c]]
		if !ok {
			i = selectingPhase(p.Phases, subjects, c)
		}
		groups[i] = append(groups[i], c)
		latest = max(latest, i)
	}
	for i, g := range groups {
		if i != latest {
			rest = append(rest, g...)
		}
	}
	slices.Sort(rest)
	return slices.Sorted(slices.Values(groups[latest])), rest
}

// selectingPhase is the index of the first phase that selects child's subject, or one past
// the last phase when none does or the plan does not generate it.
func selectingPhase(phases []spec.Phase, subjects map[string]targets.Child, child string) int {
	if s, ok := subjects[child]; ok {
		for i, ph := range phases {
			if sel, err := selects(ph, s); err == nil && sel {
				return i
			}
		}
	}
	return len(phases)
}

// forget drops a removed child from the state.
func forget(st *state.State, c string) {
	if i, found := slices.BinarySearch(st.Children, c); found {
		st.Children = slices.Delete(st.Children, i, i+1)
	}
	delete(st.Pinned, c)
	st.Confirmed = slices.DeleteFunc(st.Confirmed, func(x string) bool { return x == c })
	if len(st.Confirmed) == 0 {
		st.Confirmed = nil
	}
}
