package render

import (
	"encoding/hex"
	"hash/fnv"
	"slices"
	"strconv"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/shard"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// stateKeys are the children a state has rendered: every deployed child and, while a
// rollout runs, every admitted one; sorted, unique.
func stateKeys(st *state.State) []string {
	keys := slices.Clone(st.Children)
	if st.Rollout.Active() {
		for c := range st.Rollout.AdmittedPhases() {
			keys = append(keys, c)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// shardState is st as shard sh sees it: the same state with only the shard's children
// (deployed, admitted, removing, leaving), so a shard's render does the work of its own
// children, not of the whole fleet's. Shallow: nothing of st is changed.
func shardState(st *state.State, sh shard.Shard) *state.State {
	if st == nil || !sh.Sharded() {
		return st
	}
	own := func(keys []string) []string {
		out := make([]string, 0, len(keys)/sh.N+1)
		for _, k := range keys {
			if sh.Owns(k) {
				out = append(out, k)
			}
		}
		return out
	}
	cp := *st
	cp.Children, cp.Removing, cp.Leaving = own(st.Children), own(st.Removing), own(st.Leaving)
	if st.Rollout != nil {
		r := *st.Rollout
		r.Phases = make([]state.PhaseState, len(st.Rollout.Phases))
		for i, ph := range st.Rollout.Phases {
			ph.Admitted = own(ph.Admitted)
			r.Phases[i] = ph
		}
		cp.Rollout = &r
	}
	return &cp
}

// ShardView is what the state assigns the children of shard sh — each one's revision,
// phase and whether its removal is recorded (Removing, Leaving: the render may leave it
// out) — as a digest, and how many they are. Two states with the same view render the
// shard's children byte for byte alike: the agent re-renders a shard only when its view
// changed, and a plan carrying the view confirms the shard's render arrived — so a removal
// touches its shard, and the child is deleted only after a render that may omit it.
// nil state: the empty view.
func ShardView(st *state.State, sh shard.Shard) (string, int) {
	h := fnv.New64a()
	n := 0
	if st != nil {
		assign := st.Assignments()
		for _, k := range stateKeys(st) {
			if !sh.Owns(k) {
				continue
			}
			rev, phase, _ := assign(k)
			_, _ = h.Write([]byte(k + "\x00" + rev + "\x00" + phase + "\x00" + removal(st, k) + "\n")) // a hash never fails
			n++
		}
	}
	return hex.EncodeToString(h.Sum(nil)), n
}

// removal is the removal st records for child k: "removing", "leaving" or "" (none).
func removal(st *state.State, k string) string {
	switch {
	case slices.Contains(st.Removing, k):
		return "removing"
	case slices.Contains(st.Leaving, k):
		return "leaving"
	}
	return ""
}

// shardPlan makes the plan ConfigMap metadata of a sharded parent's render: shard 0 keeps
// the rollout's plan name (everything that reads the plan reads it), shard k ≥ 1 writes
// <rollout>-plan-<k>, so no two parents ever apply one object; each says its shard, the
// view it rendered and how many children, for the agent and `cmp-phase status`.
func shardPlan(meta map[string]any, in Input) {
	sh := in.Env.Shard
	if !sh.Sharded() {
		return
	}
	view, n := ShardView(in.State, sh)
	meta["name"] = contract.ShardPlanConfigMap(in.Spec.Name, sh.K)
	ann, ok := meta["annotations"].(map[string]string)
	if !ok {
		ann = map[string]string{}
		meta["annotations"] = ann
	}
	ann[contract.AnnotationShard] = sh.String()
	ann[contract.AnnotationShardView] = view
	ann[contract.AnnotationShardChildren] = strconv.Itoa(n)
}
