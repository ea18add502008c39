package render

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/shard"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// The view as it was computed before the one-walk (a map of the admitted children, a sorted
// copy of every key, a scan of Removing and Leaving per child): the plans the agent compares
// carry views of both, so the new walk must give the same digest byte for byte.

func refStateKeys(st *state.State) []string {
	keys := slices.Clone(st.Children)
	if st.Rollout.Active() {
		for c := range st.Rollout.AdmittedPhases() {
			keys = append(keys, c)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

func refRemoval(st *state.State, k string) string {
	switch {
	case slices.Contains(st.Removing, k):
		return "removing"
	case slices.Contains(st.Leaving, k):
		return "leaving"
	}
	return ""
}

func refShardView(st *state.State, sh shard.Shard) (string, int) {
	h := fnv.New64a()
	n := 0
	if st != nil {
		assign := st.Assignments()
		for _, k := range refStateKeys(st) {
			if !sh.Owns(k) {
				continue
			}
			rev, phase, _ := assign(k)
			_, _ = h.Write([]byte(k + "\x00" + rev + "\x00" + phase + "\x00" + refRemoval(st, k) + "\n"))
			n++
		}
	}
	return hex.EncodeToString(h.Sum(nil)), n
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%04d", prefix, i)
	}
	return out
}

// randomState is a state of n deployed children mid-rollout with pins, removals, children
// admitted before they were deployed and children admitted by two phases.
func randomState(seed uint64, n int) *state.State {
	rnd := rand.New(rand.NewPCG(seed, 7))
	children := names("c", n)
	st := &state.State{Schema: state.Schema, Generation: 3, Deployed: "old", Children: children, Pinned: map[string]string{}}
	for _, c := range children {
		switch rnd.IntN(10) {
		case 0:
			st.Pinned[c] = "pinned"
		case 1:
			st.Removing = append(st.Removing, c)
		case 2:
			st.Leaving = append(st.Leaving, c)
		}
	}
	joiners := names("j", n/10) // admitted, never deployed
	r := &state.Rollout{Revision: "new", Status: state.RolloutProgressing}
	for p := range 3 {
		ph := state.PhaseState{Name: fmt.Sprintf("p%d", p)}
		for _, c := range append(slices.Clone(children), joiners...) {
			if rnd.IntN(4) == 0 {
				ph.Admitted = append(ph.Admitted, c)
			}
		}
		rnd.Shuffle(len(ph.Admitted), func(i, j int) { ph.Admitted[i], ph.Admitted[j] = ph.Admitted[j], ph.Admitted[i] })
		r.Phases = append(r.Phases, ph)
	}
	st.Rollout = r
	return st
}

func viewCases() map[string]*state.State {
	at := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	done := randomState(2, 200)
	done.Rollout.Status, done.Rollout.EndedAt = state.RolloutCompleted, at
	both := &state.State{Deployed: "d", Children: []string{"a", "b", "c"}, Removing: []string{"b"}, Leaving: []string{"b", "c"},
		Rollout: &state.Rollout{Revision: "r", Status: state.RolloutProgressing, Phases: []state.PhaseState{
			{Name: "one", Admitted: []string{"c", "z"}}, {Name: "two", Admitted: []string{"z", "a", "c"}}}}}
	return map[string]*state.State{
		"nil":                                nil,
		"empty":                              {},
		"deployed, no rollout":               {Deployed: "d", Children: names("c", 50), Pinned: map[string]string{"c-0003": "p"}},
		"admitted only, nothing deployed":    {Rollout: &state.Rollout{Revision: "r", Status: state.RolloutProgressing, Phases: []state.PhaseState{{Name: "one", Admitted: []string{"b", "a"}}}}},
		"a child admitted twice, removals":   both,
		"a completed rollout admits nobody":  done,
		"random mid-rollout":                 randomState(1, 300),
		"another random mid-rollout":         randomState(3, 1000),
		"a rollout with no phases":           {Deployed: "d", Children: []string{"a"}, Rollout: &state.Rollout{Revision: "r", Status: state.RolloutProgressing}},
		"an abandoned rollout":               {Deployed: "d", Children: []string{"a"}, Rollout: &state.Rollout{Revision: "r", Status: state.RolloutAbandoned, Phases: []state.PhaseState{{Name: "x", Admitted: []string{"a"}}}}},
		"removals of children not deployed":  {Deployed: "d", Children: []string{"a"}, Removing: []string{"zz"}, Leaving: []string{"yy"}},
		"pins of children no longer present": {Deployed: "d", Children: []string{"a"}, Pinned: map[string]string{"b": "p"}},
	}
}

// TestShardViewIsTheSameDigest: the one-walk ShardView and ShardViews give, for every
// shard of every N (and unsharded), the digest and count the earlier computation gave.
func TestShardViewIsTheSameDigest(t *testing.T) {
	for name, st := range viewCases() {
		t.Run(name, func(t *testing.T) {
			got, gn := ShardView(st, shard.Shard{})
			if want, wn := refShardView(st, shard.Shard{}); got != want || gn != wn {
				t.Errorf("unsharded: %s/%d, want %s/%d", got, gn, want, wn)
			}
			for _, n := range []int{1, 2, 3, 5, 7} {
				all := ShardViews(st, n)
				total := 0
				for k := range n {
					sh := shard.Shard{K: k, N: n}
					want, wn := refShardView(st, sh)
					got, gn := ShardView(st, sh)
					if got != want || gn != wn {
						t.Errorf("%s: ShardView %s/%d, want %s/%d", sh, got, gn, want, wn)
					}
					if all[k].Digest != want || all[k].Children != wn {
						t.Errorf("%s: ShardViews %s/%d, want %s/%d", sh, all[k].Digest, all[k].Children, want, wn)
					}
					total += gn
				}
				if st != nil && total != len(refStateKeys(st)) {
					t.Errorf("N=%d: the shards view %d children, the state renders %d", n, total, len(refStateKeys(st)))
				}
			}
		})
	}
}

// TestShardViewOfNoShard: a shard out of range owns no child (as Owns says), never a panic.
func TestShardViewOfNoShard(t *testing.T) {
	empty, _ := refShardView(nil, shard.Shard{})
	for _, sh := range []shard.Shard{{K: 3, N: 3}, {K: -1, N: 2}} {
		if got, n := ShardView(randomState(1, 50), sh); got != empty || n != 0 {
			t.Errorf("%+v: %s/%d, want the empty view", sh, got, n)
		}
	}
}

// TestAssignedChildrenIsAssignments: the walk yields stateKeys in order, each with what
// Assignments says, and keep filters it.
func TestAssignedChildrenIsAssignments(t *testing.T) {
	cases := viewCases()
	cases["unsorted children with a duplicate"] = &state.State{Deployed: "d", Children: []string{"c", "a", "c", "b"}}
	for name, st := range cases {
		t.Run(name, func(t *testing.T) {
			if st == nil {
				if got := assignedChildren(nil, nil); got != nil {
					t.Fatalf("nil state: %v", got)
				}
				return
			}
			sorted := st
			if !strictlySorted(st.Children) {
				cp := *st
				cp.Children = slices.Compact(slices.Sorted(slices.Values(st.Children)))
				sorted = &cp
			}
			keys, assign := refStateKeys(st), sorted.Assignments()
			got := assignedChildren(st, nil)
			if len(got) != len(keys) {
				t.Fatalf("%d children, want %d", len(got), len(keys))
			}
			for i, k := range keys {
				rev, phase, _ := assign(k)
				if want := (assigned{key: k, rev: rev, phase: phase}); got[i] != want {
					t.Errorf("[%d] = %+v, want %+v", i, got[i], want)
				}
			}
			own := shard.Shard{K: 1, N: 3}
			for _, a := range assignedChildren(st, own.Owns) {
				if !own.Owns(a.key) {
					t.Errorf("kept %s of another shard", a.key)
				}
			}
		})
	}
}

// TestByRevisionGroups: every child once, grouped by revision, names in order in a group.
func TestByRevisionGroups(t *testing.T) {
	in := assignedChildren(randomState(5, 300), nil)
	seen := 0
	for _, g := range byRevision(in) {
		for i, a := range g {
			if a.rev != g[0].rev || (i > 0 && g[i-1].key >= a.key) {
				t.Fatalf("group %s: %+v out of place", g[0].rev, a)
			}
		}
		seen += len(g)
	}
	if seen != len(in) {
		t.Fatalf("%d children grouped, want %d", seen, len(in))
	}
	if byRevision(nil) != nil {
		t.Fatal("no children: groups")
	}
}

func BenchmarkShardViews(b *testing.B) {
	st := randomState(1, 10000)
	b.Run("one-shard", func(b *testing.B) {
		for b.Loop() {
			ShardView(st, shard.Shard{K: 1, N: 5})
		}
	})
	b.Run("every-shard-one-walk", func(b *testing.B) {
		for b.Loop() {
			ShardViews(st, 5)
		}
	})
	b.Run("every-shard-before", func(b *testing.B) {
		for b.Loop() {
			for k := range 5 {
				refShardView(st, shard.Shard{K: k, N: 5})
			}
		}
	})
}
