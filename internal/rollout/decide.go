package rollout

import (
	"fmt"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// WarmAhead is how many children of a rollout's next admissions a Decision names to warm.
const WarmAhead = 8

// Decision is everything one pass of the agent decided, as data: the state to write and
// the I/O to do once it is written. The agent gathers the Observed, calls Decide, writes
// Next and carries the rest out; it decides nothing of its own.
type Decision struct {
	// Next is the state to write (cur itself: nothing to write; nil: nothing decided yet,
	// e.g. a sharded rollout whose shards are not all there before its first state).
	Next *state.State
	// Actions are Step's: Events, hook runs, consumed control keys, retried syncs, when to
	// come back.
	Actions []Action
	// Rebuilt: the state was missing while children exist, and Next was rebuilt from
	// their revision annotations (Rebuild) before the step.
	Rebuilt bool
	// Moves are the children Next moves to a revision their live Application does not
	// show yet (Moving), sorted by child: the agent applies them once the parent names
	// Next (the re-render protocol).
	Moves []Move
	// Warm are the children the rollout admits next, in the order they will move, at most
	// WarmAhead; WarmState is the state that admits them, the one to render them with.
	// Both are named only for a generation of Next the agent has not warmed
	// (Observed.Warmed, NoWarm).
	Warm      []string
	WarmState *state.State
	// Delete are the live children to delete now, in the deletion order (a deleted
	// parent's, or a removed spec's: DeleteWhy says which); Release: every child is gone
	// and the state records it, so the deleted parent may go (its finalizer comes off).
	Delete    []string
	DeleteWhy string
	Release   bool
	// SetPhaseGen: point the parent's PHASE_GEN at Next now (a removed spec's children are
	// gone: the parent re-renders to nothing).
	SetPhaseGen bool
	// Dismantling: every child of the rollout goes (Delete, Release); the agent does only
	// that on this pass: no hooks, syncs or moves.
	Dismantling bool
}

// Decide is the engine's one door: rebuild a lost state when the live children prove
// there was one, step it, and say which children move and, once per state generation,
// which to warm.
func Decide(p plan.Plan, cur *state.State, o Observed, now time.Time) (Decision, error) {
	var d Decision
	live := make(map[string]string, len(o.Children))
	for name, c := range o.Children {
		if !c.Unselected {
			live[name] = c.Revision
		}
	}
	if o.Dismantle != nil {
		return dismantle(p, cur, o, now), nil
	}
	if o.ShardHold != "" && cur == nil {
		return d, nil // nothing deployed yet: nothing to write until every shard is there
	}
	if cur == nil && (o.PhaseGen > 0 || len(live) > 0) {
		st, err := Rebuild(p, p.Others, live, o.PhaseGen)
		if err != nil {
			return d, err
		}
		st.ViewGeneration = st.Generation // the renderer needs it: PHASE_GEN names a state it cannot see
		cur, d.Rebuilt = st, true
		if o.ChangedOf != nil {
			if o.Changed, err = o.ChangedOf(st); err != nil {
				return d, err
			}
		}
	}
	next, acts, err := Step(p, cur, o, now)
	if err != nil {
		return d, err
	}
	d.Next, d.Actions = next, acts
	if next == nil {
		return d, nil
	}

	if d.Rebuilt {
		d.Actions = append(d.Actions, Action{Kind: ActEvent, Reason: EvStateRebuilt, Warning: true,
			Message: fmt.Sprintf("state ConfigMap %s/%s was missing: rebuilt at generation %d from the live children's revision annotations", p.Namespace, contract.StateConfigMap(p.Rollout), next.Generation)})
	}
	d.Moves = Moving(next, live)
	if next.Rollout.Active() && !o.NoWarm && next.Generation != o.Warmed {
		d.WarmState = PreviewNext(next, p.Phases)
		d.Warm = newlyAdmitted(next, d.WarmState, WarmAhead)
	}
	return d, nil
}

// newlyAdmitted are the children next admits that st does not, in the order their phase
// takes its members (the order they move in), at most n.
func newlyAdmitted(st, next *state.State, n int) []string {
	if next == st || next == nil || next.Rollout == nil {
		return nil
	}
	added := next.Rollout.AdmittedPhases()
	for c := range st.Rollout.AdmittedPhases() {
		delete(added, c)
	}
	var out []string
	for _, ph := range next.Rollout.Phases {
		for _, c := range ph.Members {
			if len(out) == n {
				return out
			}
			if _, ok := added[c]; ok {
				out = append(out, c)
				delete(added, c)
			}
		}
	}
	return out
}
