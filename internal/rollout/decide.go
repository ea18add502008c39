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

// Decide is the engine's one door: rebuild a lost state when the live children prove
// there was one, step it, and say which children move, which to sync and, once per state
// generation, which to warm.
func Decide(p plan.Plan, cur *state.State, o Observed, now time.Time) (Decision, error) {
	var d Decision
	live := liveRevisions(o.Children)
	if o.Dismantle != nil {
		return dismantle(p, cur, o, now), nil
	}
	if o.ShardHold != "" && cur == nil {
		return d, nil // nothing deployed yet: nothing to write until every shard is there
	}
	if cur == nil {
		st, err := rebuildOf(p, live, o.PhaseGen)
		if err != nil {
			return d, err
		}
		if st != nil {
			cur, d.Rebuilt = st, true
			if o.ChangedIfRebuilt != nil {
				o.Changed = o.ChangedIfRebuilt
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
	d.Syncs = syncs(next, o.Children)
	if next.Rollout.Active() && !o.NoWarm && next.Generation != o.Warmed {
		d.WarmState = PreviewNext(next, p.Phases)
		d.Warm = newlyAdmitted(next, d.WarmState, WarmAhead)
	}
	return d, nil
}

// liveRevisions are the revisions the live children of the rollout run, by child (an
// unselected child is no rollout's).
func liveRevisions(children map[string]Observation) map[string]string {
	live := make(map[string]string, len(children))
	for name, c := range children {
		if !c.Unselected {
			live[name] = c.Revision
		}
	}
	return live
}

// Rebuilt is the state Decide rebuilds over cur: when the rollout has none (cur nil) and
// the live children or the parents' PHASE_GEN prove a lost one; nil when it has one or
// nothing proves it. The agent calls it before Decide to judge Observed.ChangedIfRebuilt
// against it (the renderer's comparison, which the engine does not call); Decide makes
// the same state.
func Rebuilt(p plan.Plan, cur *state.State, children map[string]Observation, phaseGen int64) (*state.State, error) {
	if cur != nil {
		return nil, nil
	}
	return rebuildOf(p, liveRevisions(children), phaseGen)
}

// rebuildOf is Rebuilt over the live revisions, by child: the state Rebuild makes from
// them, with the view the renderer needs (PHASE_GEN names a state it cannot see).
func rebuildOf(p plan.Plan, live map[string]string, phaseGen int64) (*state.State, error) {
	if phaseGen <= 0 && len(live) == 0 {
		return nil, nil
	}
	st, err := Rebuild(p, p.Others, live, phaseGen)
	if err != nil {
		return nil, err
	}
	st.ViewGeneration = st.Generation
	return st, nil
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
