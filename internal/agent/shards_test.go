package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-phase/cmp-phase/internal/agent/rerender"
	"github.com/cmp-phase/cmp-phase/internal/agent/shardset"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/shard"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// shardedState deploys children c-0 … c-29 at r1 and runs a rollout of r2 that admitted
// c-0 in its first phase.
func shardedState(admitted ...string) *state.State {
	st := &state.State{Schema: state.Schema, Generation: 7, ViewGeneration: 7, Deployed: "r1",
		Revisions: map[string]json.RawMessage{"r1": json.RawMessage(`{}`), "r2": json.RawMessage(`{}`)}}
	for i := range 30 {
		st.Children = append(st.Children, "c-"+string(rune('a'+i/10))+string(rune('0'+i%10)))
	}
	st.Rollout = &state.Rollout{Revision: "r2", Status: state.RolloutProgressing,
		Phases: []state.PhaseState{{Name: "dev", Status: state.PhaseAdmitting, Members: st.Children, Admitted: admitted}}}
	return st
}

// shardsOf are 3 shards whose plans rendered st, each by a live automated parent.
func shardsOf(st *state.State) []shardset.Member {
	out := make([]shardset.Member, 3)
	for k := range out {
		sh := shard.Shard{K: k, N: 3}
		view, n := render.ShardView(st, sh)
		app := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "fleet-" + sh.String()[:1]},
			Spec: v1alpha1.ApplicationSpec{SyncPolicy: &v1alpha1.SyncPolicy{Automated: &v1alpha1.SyncPolicyAutomated{}},
				Source: &v1alpha1.ApplicationSource{Plugin: &v1alpha1.ApplicationSourcePlugin{Env: v1alpha1.Env{{Name: "SHARD", Value: sh.String()}}}}}}
		out[k] = shardset.Member{Shard: sh, Plan: "fleet-plan", Found: true, Says: sh.String(), Parent: app.Name, App: app,
			Revision: "r2", View: view, PlanGen: st.ViewGeneration, Children: n}
	}
	return out
}

// TestActShardsBumpsOnlyTouchedShards: after a write that admits one child, only its
// shard's parent is pointed at the new generation; the other parents are not written, and
// the rollout comes back for the touched shard's confirmation.
func TestActShardsBumpsOnlyTouchedShards(t *testing.T) {
	ctx := context.Background()
	before := shardedState("c-a0")
	shards := shardsOf(before)
	var live []runtime.Object
	for _, s := range shards {
		s.App.Namespace = testNS
		s.App.Spec.Source.Plugin.Env = append(s.App.Spec.Source.Plugin.Env, &v1alpha1.EnvEntry{Name: contract.EnvPhaseGen, Value: "7"})
		live = append(live, s.App)
	}
	f := newFakeAgent(t, live)
	const child = "c-b7"
	after := shardedState("c-a0", child)
	after.Generation, after.ViewGeneration = 8, 8
	p := &pass{log: f.log, plan: &plan.Plan{Rollout: "fleet", Parent: shards[0].Parent}, shards: shards,
		children: map[string]*v1alpha1.Application{}}
	requeue, err := f.actShards(ctx, p, after, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shards {
		got := rerender.PhaseGen(getApp(t, f, s.Parent))
		if want := map[bool]int64{true: 8, false: 7}[s.Shard.Owns(child)]; got != want {
			t.Errorf("shard %s (touched %v): PHASE_GEN %d, want %d", s.Shard, s.Shard.Owns(child), got, want)
		}
	}
	if n := writes(f.argo.Actions(), "applications"); n != 1 {
		t.Errorf("%d writes of Applications, want 1 (the touched shard's parent)", n)
	}
	if requeue.IsZero() {
		t.Error("no requeue for the touched shard's confirmation")
	}
}

// TestAnOverdueShardRenderHoldsDespiteAskingAgain: the agent asks a touched shard's parent
// again every ConfirmAfter; the overdue hold counts from when the shard's view first
// differed from its plan, so it fires after 2×ConfirmAfter, and its render's arrival clears it.
func TestAnOverdueShardRenderHoldsDespiteAskingAgain(t *testing.T) {
	ctx := context.Background()
	before := shardedState("c-a0")
	shards := shardsOf(before)
	var live []runtime.Object
	for _, s := range shards {
		s.App.Namespace = testNS
		s.App.Spec.Source.Plugin.Env = append(s.App.Spec.Source.Plugin.Env, &v1alpha1.EnvEntry{Name: contract.EnvPhaseGen, Value: "7"})
		live = append(live, s.App)
	}
	f := newFakeAgent(t, live)
	confirm := f.opts.ConfirmAfter
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	after := shardedState("c-a0", "c-b7")
	after.Generation, after.ViewGeneration = 8, 8
	p := &pass{log: f.log, plan: &plan.Plan{Rollout: "fleet", Parent: shards[0].Parent}, shards: shards,
		children: map[string]*v1alpha1.Application{}}
	for _, c := range []struct {
		at   time.Duration
		hold bool
	}{
		{0, false},
		{confirm, false},       // asked again
		{2*confirm - 1, false}, // not overdue yet
		{2 * confirm, true},    // overdue, though asked again at ConfirmAfter
		{3 * confirm, true},    // and asked again since: still overdue
	} {
		now := t0.Add(c.at)
		f.now = func() time.Time { return now }
		got := shardset.Hold(shards, after, f.shardsSince("fleet", shards), now, 2*confirm)
		if (got != "") != c.hold || (c.hold && !strings.Contains(got, "has not rendered state generation 8")) {
			t.Fatalf("at %s: hold %q, want hold %v", c.at, got, c.hold)
		}
		if _, err := f.actShards(ctx, p, after, time.Time{}); err != nil {
			t.Fatal(err)
		}
		for k := range shards {
			shards[k].App = getApp(t, f, shards[k].Parent)
		}
	}
	for k := range shards { // the touched shard's render arrives
		shards[k].View, _ = render.ShardView(after, shards[k].Shard)
	}
	now := t0.Add(4 * confirm)
	f.now = func() time.Time { return now }
	if _, err := f.actShards(ctx, p, after, time.Time{}); err != nil {
		t.Fatal(err)
	}
	shards[0].View = "old" // a later touch counts afresh
	if got := shardset.Hold(shards, after, f.shardsSince("fleet", shards), now, 2*confirm); got != "" {
		t.Fatalf("after the render arrived: hold %q", got)
	}
}

// TestEachShardEnactsItsOwnMoves: the shards of one pass take their moves from the same
// decision in turn; each gets exactly its own children's, and none a move of child ""
// (filtering the decision's slice in place left the next shard the previous one's moves
// and a zeroed tail, which failed the pass closed at the start of every sharded rollout).
func TestEachShardEnactsItsOwnMoves(t *testing.T) {
	st := shardedState()
	var moves []rollout.Move
	for _, c := range st.Children {
		moves = append(moves, rollout.Move{Child: c, Revision: "r2"})
	}
	seen := map[string]bool{}
	for _, s := range shardsOf(st) {
		for _, m := range ownMoves(moves, s.Shard.Owns) {
			if m.Child == "" || !s.Shard.Owns(m.Child) || seen[m.Child] {
				t.Fatalf("shard %s enacts %+v", s.Shard, m)
			}
			seen[m.Child] = true
		}
	}
	if len(seen) != len(st.Children) {
		t.Errorf("the shards enact %d of %d moves", len(seen), len(st.Children))
	}
}
