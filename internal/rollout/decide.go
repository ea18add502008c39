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
