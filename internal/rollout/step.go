package rollout

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Step decides the next state from the current one, the plan and observations, at now. It
// does no I/O and reads no clock. It returns the state unchanged (the same pointer) when
// there is nothing to write; a changed state has the next generation.
func Step(p plan.Plan, cur *state.State, o Observed, now time.Time) (*state.State, []Action, error) {
	st := cur.Clone()
	if st == nil {
		st = &state.State{Schema: state.Schema} // first deployment: no state yet
	}
	o.openings = openings{}
	p = legacyPlan(st, p)
	p = withTracks(st.Rollout, p) // a split rollout's phases and the plan's, index for index
	ps := &pass{st: st, p: p, o: o, now: now}
	ps.steer()
	ps.adopt()
	if err := ps.move(); err != nil {
		return nil, nil, err
	}
	followRollout(st.Rollout, now) // tracks.go
	ps.failureHooks()
	ps.driveAfterDelete()
	acts := liveRetries(st.Rollout, ps.acts)
	recordUnselected(st, p, o)
	stampTimes(cur, st, now)
	next, acts := written(cur, st, acts, now)
	return next, acts, nil
}

// move moves the rollout as far as this pass may: a removal, a pause or a shard's hold
// first, then the idle state, a new rollout, a stopped one, a rollback, new phases, or the
// rollout's own progress.
func (ps *pass) move() error {
	st, p := ps.st, ps.p
	r := st.Rollout
	switch {
	case ps.removed():
		// the rollout's spec is gone from git and a person confirmed it goes: the agent
		// removes its children (Teardown); nothing is admitted, no rollout starts
	case st.Paused != nil:
		// a pause holds everything: phases, new rollouts, removals
	case ps.shardsHeld():
		// a shard that is not there holds everything too: a phase spans every shard; but
		// leavers are recorded, or a shard's render fails on them and holds it forever, and
		// so are the admitted children that settled meanwhile
		ps.recordLeavers()
		ps.recordSettled()
	case p.Revision == st.Deployed && !r.Active():
		return ps.idle()
	case r == nil || r.Revision != p.Revision:
		return ps.start(nil)
	case r.Status.IsTerminal():
		// nothing moves by itself (a person's edit above may have changed it); runs that
		// were in flight when it stopped still have their outcome recorded
		ps.recordLate()
	case r.Status == StatusRollingBack:
		ps.rollBack()
	case !linedUp(r, p):
		// the phases changed at the same revision: the current phase finishes, then the new ones take over
		return ps.replan()
	default:
		ps.progress()
	}
	return nil
}

// written is the state Step returns and its actions: cur itself when nothing changed (or
// only reasons did, written at most every ReasonEvery), else st at the next generation.
func written(cur, st *state.State, acts []Action, now time.Time) (*state.State, []Action) {
	if state.Equal(cur, st) {
		return cur, filterRequeue(acts)
	}
	if cur != nil && reasonsOnly(cur, st) && now.Before(cur.WrittenAt.Add(ReasonEvery)) {
		next := cur.WrittenAt.Add(ReasonEvery)
		// only why waiting clusters wait changed: not worth a write each time it does
		return cur, append(filterRequeue(acts), Action{Kind: ActRequeue, At: next, Message: "write the latest reasons"})
	}
	st.Generation++
	st.WrittenAt = now
	if !reflect.DeepEqual(renderView(cur), renderView(st)) {
		st.ViewGeneration = st.Generation // the agent has the parent re-render it
	}
	return st, acts
}

// view is the part of a state the renderer reads: only a change there needs a re-render
// (statuses and reasons are for people and the engine).
type view struct {
	Deployed, Revision string
	Active             bool
	Children, Removing []string
	Leaving            []string
	Pinned             map[string]string
	Admitted           [][]string
}

func renderView(s *state.State) view {
	if s == nil {
		return view{}
	}
	v := view{Deployed: s.Deployed, Children: s.Children, Removing: s.Removing, Leaving: s.Leaving, Pinned: s.Pinned}
	if r := s.Rollout; r != nil {
		v.Revision, v.Active = r.Revision, r.Active()
		for _, ph := range r.Phases {
			v.Admitted = append(v.Admitted, ph.Admitted)
		}
	}
	return v
}

// start abandons a rollout of another revision where it stands (its admitted children keep
// the revision they run, pinned) and starts one for the plan at phase 0, for the children
// that would change (only those in only, when given: a catch-up).
func (ps *pass) start(only map[string]bool) error {
	st, p, o, now := ps.st, ps.p, ps.o, ps.now
	if old := st.Rollout; old.Active() {
		pinAdmitted(st, old)
		msg := fmt.Sprintf("rollout of revision %s abandoned for revision %s; nobody moved", old.Revision, p.Revision)
		if old.Revision == p.Revision {
			msg = fmt.Sprintf("rollout of revision %s handed to its new phases; nobody moved", old.Revision)
		}
		ps.emit(old, EvRolloutAbandoned, msg)
	}
	taking := changedSubjects(st, o)
	if only != nil {
		taking = slices.DeleteFunc(taking, func(s targets.Child) bool { return !only[s.Key] })
	}
	r := &state.Rollout{Revision: p.Revision, Status: StatusProgressing, StartedAt: now}
	forgetEndedAfterDelete(st) // a new rollout: a later removal runs its post-delete hooks again
	members, err := lineup(r, p, taking)
	if err != nil {
		return err
	}
	if err := tooLarge(p, members, o.Limits); err != nil {
		return err
	}
	r.MaxFailures = budgetOf(p, members)
	if st.Revisions == nil {
		st.Revisions = map[string]json.RawMessage{}
	}
	if _, stored := st.Revisions[p.Revision]; !stored {
		st.Revisions[p.Revision] = p.Body // a stored one keeps the commit its children run
	}
	st.KeepPlacements() // the children it has not admitted keep their place in the last one
	st.Rollout = r
	ps.emit(r, EvRolloutStarted, fmt.Sprintf("rollout of revision %s started: %d children take part", p.Revision, len(taking)))
	ps.notPhased()
	ps.leftOut()
	ps.manyHooks()
	ps.under(withTracks(r, p), ps.staleAnswers(), (*pass).progress)
	return nil
}

// changedSubjects are the subjects whose child would change, leaving out children being
// removed and clusters whose Secret is gone (held for the removal grace).
func changedSubjects(st *state.State, o Observed) []targets.Child {
	var out []targets.Child
	for _, s := range o.Subjects {
		if o.Changed[s.Key] && !s.Absent && !slices.Contains(st.Removing, s.Key) {
			out = append(out, s)
		}
	}
	return out
}

// pinAdmitted keeps the children an abandoned rollout admitted on its revision.
func pinAdmitted(st *state.State, r *state.Rollout) {
	for _, ph := range r.Phases {
		for _, c := range ph.Admitted {
			if st.Pinned == nil {
				st.Pinned = map[string]string{}
			}
			st.Pinned[c] = r.Revision
			addChild(st, c)
		}
	}
	r.Status, r.Deferred = StatusAbandoned, nil
}

func addChild(st *state.State, c string) {
	if i, found := slices.BinarySearch(st.Children, c); !found {
		st.Children = slices.Insert(st.Children, i, c)
	}
}

// filterRequeue keeps the actions of an unchanged state that still matter: requeues, hooks
// the ledger says are running (a new agent starts them again), and control keys to remove.
func filterRequeue(acts []Action) []Action {
	return slices.DeleteFunc(acts, func(a Action) bool {
		return a.Kind != ActRequeue && a.Kind != ActRunHook && a.Kind != ActConsume && a.Kind != ActSyncAgain
	})
}

// admittedSet is every child any phase of r admitted.
func admittedSet(r *state.Rollout) map[string]bool {
	out := map[string]bool{}
	for c := range r.AdmittedPhases() {
		out[c] = true
	}
	return out
}
