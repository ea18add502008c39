package render

import (
	"encoding/hex"
	"hash"
	"hash/fnv"
	"strconv"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/shard"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

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
// nil state: the empty view. An unsharded sh views every child.
func ShardView(st *state.State, sh shard.Shard) (string, int) {
	n := max(sh.N, 1)
	if sh.K < 0 || sh.K >= n { // owns no child
		st = nil
	}
	v := views(st, n, sh.K)[min(max(sh.K, 0), n-1)]
	return v.Digest, v.Children
}

// View is one shard's ShardView: the digest and how many children it renders.
type View struct {
	Digest   string
	Children int
}

// ShardViews is ShardView of every shard k/n (n ≥ 1), in one walk of the state: for the
// agent, which asks about every shard of a rollout on each pass. ShardViews(st, n)[k] is
// ShardView(st, shard.Shard{K: k, N: n}).
func ShardViews(st *state.State, n int) []View {
	return views(st, max(n, 1), -1)
}

// views digests the shards of n; only ≥ 0 digests that shard alone (the others stay empty).
func views(st *state.State, n, only int) []View {
	hs := make([]hash.Hash64, n)
	counts := make([]int, n)
	for k := range hs {
		hs[k] = fnv.New64a()
	}
	if st != nil {
		removal := removals(st)
		var rec []byte
		for _, a := range assignedChildren(st, nil) {
			k := shard.Of(a.key, n)
			if only >= 0 && k != only {
				continue
			}
			rec = append(rec[:0], a.key...)
			rec = append(append(rec, 0), a.rev...)
			rec = append(append(rec, 0), a.phase...)
			rec = append(append(rec, 0), removal(a.key)...)
			_, _ = hs[k].Write(append(rec, '\n')) // a hash never fails
			counts[k]++
		}
	}
	out := make([]View, n)
	for k, h := range hs {
		out[k] = View{Digest: hex.EncodeToString(h.Sum(nil)), Children: counts[k]}
	}
	return out
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
