package rollout

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// MaxRebuildPhaseGen is the largest PHASE_GEN a state is rebuilt after (2^53, beyond any
// count of writes and exact as a JSON number): state.MaxGeneration leaves room for 2^62
// writes after it.
const MaxRebuildPhaseGen = 1 << 53

// Rebuild makes a state from the live children when the state ConfigMap was lost while
// children exist: which revision each runs comes from its revision annotation, the specs
// from the plan (its own revision and the backup of the others). No child is moved: when
// any child is not on the plan's revision, the revision most of those run becomes the
// deployed one, so the plan's rollout starts again for exactly the children not on it;
// children already on it are pinned there. The generation is after the parent's PHASE_GEN
// (the renderer refuses a state older than the generation the parent names).
func Rebuild(p plan.Plan, others map[string]json.RawMessage, live map[string]string, phaseGen int64) (*state.State, error) {
	// phaseGen+1 must be a generation that many writes can follow: PHASE_GEN=2^63-1
	// wrapped to a negative one, which every render then refused as older than the parent's,
	// and one just below it rebuilt a state that could never be written again.
	if phaseGen < 0 || phaseGen > MaxRebuildPhaseGen {
		return nil, fmt.Errorf("rebuild state: the parent's PHASE_GEN is %d, and a state is rebuilt at one more, which must be between 1 and %d so it can be written again (fix: set the parent's plugin env PHASE_GEN to 0, or remove it, and let the agent rebuild the state again)", phaseGen, int64(MaxRebuildPhaseGen)+1)
	}
	bodies := maps.Clone(others)
	if bodies == nil {
		bodies = map[string]json.RawMessage{}
	}
	bodies[p.Revision] = p.Body
	st := &state.State{Schema: state.Schema, Generation: phaseGen + 1, Revisions: map[string]json.RawMessage{}}
	votes := map[string]int{}
	for _, child := range slices.Sorted(maps.Keys(live)) {
		rev := live[child]
		if _, ok := bodies[rev]; !ok {
			return nil, fmt.Errorf("rebuild state: child %s runs revision %q, whose spec neither the plan nor its backup holds (fix: restore the state ConfigMap from a backup, or delete the child so it is deployed afresh)", child, rev)
		}
		st.Children = append(st.Children, child)
		st.Revisions[rev] = bodies[rev]
		if rev != p.Revision {
			votes[rev]++
		}
	}
	st.Deployed = majority(p.Revision, votes)
	for _, child := range st.Children {
		if live[child] != st.Deployed {
			if st.Pinned == nil {
				st.Pinned = map[string]string{}
			}
			st.Pinned[child] = live[child]
		}
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("rebuild state: %w", err)
	}
	return st, nil
}

// majority is the revision most children off the plan's revision run (votes counts them by
// revision), the lowest of equals; planRev when every child runs it.
func majority(planRev string, votes map[string]int) string {
	deployed := planRev
	for rev, n := range votes {
		if best := votes[deployed]; n > best || (n == best && rev < deployed) || deployed == planRev {
			deployed = rev
		}
	}
	return deployed
}
