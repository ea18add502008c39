package shardset

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render"
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
func shardsOf(st *state.State) []Member {
	out := make([]Member, 3)
	for k := range out {
		sh := shard.Shard{K: k, N: 3}
		view, n := render.ShardView(st, sh)
		app := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "fleet-" + sh.String()[:1]},
			Spec: v1alpha1.ApplicationSpec{SyncPolicy: &v1alpha1.SyncPolicy{Automated: &v1alpha1.SyncPolicyAutomated{}},
				Source: &v1alpha1.ApplicationSource{Plugin: &v1alpha1.ApplicationSourcePlugin{Env: v1alpha1.Env{{Name: "SHARD", Value: sh.String()}}}}}}
		out[k] = Member{Shard: sh, Plan: "fleet-plan", Found: true, Says: sh.String(), Parent: app.Name, App: app,
			Revision: "r2", View: view, PlanGen: st.ViewGeneration, Children: n}
	}
	return out
}

// TestOnlyTouchedShardsRerender: a transition that admits one child touches its shard
// alone; the others' renders still hold, so they are not asked to render again.
func TestOnlyTouchedShardsRerender(t *testing.T) {
	before := shardedState("c-a0")
	shards := shardsOf(before)
	for _, child := range []string{"c-a1", "c-b7", "c-c9"} {
		after := shardedState("c-a0", child)
		after.Generation, after.ViewGeneration = 8, 8
		for _, s := range shards {
			if got, want := Touched(s, Digest(Views(after, shards), after, s)), s.Shard.Owns(child); got != want {
				t.Errorf("admit %s (shard %d): shard %s Touched %v, want %v", child, shard.Of(child, 3), s.Shard, got, want)
			}
		}
	}
	for _, s := range shards {
		if Touched(s, Digest(Views(before, shards), before, s)) {
			t.Errorf("shard %s Touched by the state it rendered", s.Shard)
		}
	}
	missing := shards[1]
	missing.Found = false
	if !Touched(missing, Digest(Views(before, shards), before, missing)) {
		t.Error("a shard without a plan is not Touched")
	}
}

// TestHold names the first shard that holds a rollout, and the fix.
func TestHold(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	st := shardedState("c-a0")
	cases := []struct {
		name  string
		edit  func([]Member, map[int]time.Time)
		st    *state.State
		wants string
	}{
		{"every shard there", func([]Member, map[int]time.Time) {}, st, ""},
		{"a parent missing", func(s []Member, _ map[int]time.Time) { s[2].App = nil }, st, `shard 2/3: parent "fleet-2" missing (fix: recreate it, a parent with plugin env SHARD=2/3)`},
		{"no plan", func(s []Member, _ map[int]time.Time) { s[1] = Member{Shard: s[1].Shard, Plan: "fleet-plan-1"} }, st,
			"shard 1/3: no plan fleet-plan-1: no parent has rendered it (fix: create a parent with plugin env SHARD=1/3)"},
		{"N disagrees", func(s []Member, _ map[int]time.Time) { s[1].Says = "1/4" }, st, `shard 1/3: parent "fleet-1" renders SHARD="1/4", shard 0 says N=3`},
		{"a parent's SHARD changed since its plan", func(s []Member, _ map[int]time.Time) { s[1].App.Spec.Source.Plugin.Env[0].Value = "1/4" }, st,
			`shard 1/3: parent "fleet-1" has SHARD="1/4", its plan says 1/3`},
		{"a render error", func(s []Member, _ map[int]time.Time) {
			s[0].App.Status.Conditions = []v1alpha1.ApplicationCondition{{Type: v1alpha1.ApplicationConditionComparisonError, Message: "rpc error: spec.yaml: bad"}}
		}, st, `shard 0/3: parent "fleet-0" fails to render: rpc error: spec.yaml: bad`},
		{"another commit", func(s []Member, _ map[int]time.Time) { s[2].Revision = "r3" }, st, `shard 2/3: parent "fleet-2" renders revision r3, shard 0 revision r2`},
		{"other child settings", func(s []Member, _ map[int]time.Time) {
			for k := range s {
				s[k].ChildEnv = `{"namespace":"argocd","syncOptions":"Prune=false"}`
			}
			s[1].ChildEnv = `{"namespace":"argocd","syncOptions":"Prune=true"}`
		}, st, `shard 1/3: parent "fleet-1" renders children with {"namespace":"argocd","syncOptions":"Prune=true"}, shard 0's parent "fleet-0" with {"namespace":"argocd","syncOptions":"Prune=false"}`},
		{"the same child settings", func(s []Member, _ map[int]time.Time) {
			for k := range s {
				s[k].ChildEnv = `{"namespace":"argocd","syncOptions":"Prune=false"}`
			}
		}, st, ""},
		{"a Touched shard's render overdue", func(s []Member, since map[int]time.Time) { s[1].View, since[1] = "old", now.Add(-2*time.Minute) }, st,
			`shard 1/3: parent "fleet-1" has not rendered state generation 7 since 2026-11-25T11:58:00Z`},
		{"a Touched shard's render under way", func(s []Member, since map[int]time.Time) { s[1].View, since[1] = "old", now.Add(-10*time.Second) }, st, ""},
		{"the first shard holding is named", func(s []Member, _ map[int]time.Time) { s[1].App, s[2].App = nil, nil }, st, `shard 1/3: parent "fleet-1" missing`},
		{"unsharded: nothing holds", nil, st, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var shards []Member
			since := map[int]time.Time{}
			if c.edit != nil {
				shards = shardsOf(c.st)
				c.edit(shards, since)
			}
			got := Hold(shards, c.st, since, now, time.Minute)
			if (c.wants == "") != (got == "") || !strings.HasPrefix(got, c.wants) {
				t.Errorf("hold %q, want %q", got, c.wants)
			}
		})
	}
}

// TestAnOverdueHoldReadsTheSameOnEveryPass: the reason is recorded in the state and told
// once per reason, so it must not change while the hold lasts (it said the time elapsed,
// and each pass wrote the state and an Event).
func TestAnOverdueHoldReadsTheSameOnEveryPass(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	st := shardedState("c-a0")
	shards := shardsOf(st)
	shards[1].View = "old"
	since := map[int]time.Time{1: now.Add(-2 * time.Minute)}
	first, later := Hold(shards, st, since, now, time.Minute), Hold(shards, st, since, now.Add(5*time.Second), time.Minute)
	if first == "" || first != later {
		t.Fatalf("hold %q, five seconds later %q", first, later)
	}
}

// TestConflict: plans of another N, or shard plans beside an unsharded plan, hold the
// rollout (a child could be rendered by two parents); agreeing plans do not.
func TestConflict(t *testing.T) {
	planOf := func(name, says, parent string) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{contract.LabelRollout: "fleet"},
			Annotations: map[string]string{contract.AnnotationParent: parent}}}
		if says != "" {
			cm.Annotations[contract.AnnotationShard] = says
		}
		return cm
	}
	three := shard.Shard{K: 0, N: 3}
	agree := []*corev1.ConfigMap{planOf("fleet-plan", "0/3", "fleet-0"), planOf("fleet-plan-1", "1/3", "fleet-1"), planOf("fleet-plan-2", "2/3", "fleet-2")}
	if why := Conflict("fleet-0", three, agree); why != "" {
		t.Errorf("agreeing plans: %s", why)
	}
	if why := Conflict("fleet", shard.Shard{}, []*corev1.ConfigMap{planOf("fleet-plan", "", "fleet")}); why != "" {
		t.Errorf("one unsharded plan: %s", why)
	}
	stale := append(agree, planOf("fleet-plan-4", "4/5", "fleet-4"))
	if why := Conflict("fleet-0", three, stale); !strings.Contains(why, `plan fleet-plan-4 of parent "fleet-4" says SHARD=4/5, shard 0's parent "fleet-0" says SHARD=0/3`) {
		t.Errorf("a plan of another N: %q", why)
	}
	mixed := []*corev1.ConfigMap{planOf("fleet-plan", "", "fleet"), planOf("fleet-plan-1", "1/2", "fleet-1")}
	if why := Conflict("fleet", shard.Shard{}, mixed); !strings.Contains(why, `shard 0's parent "fleet" renders every child`) {
		t.Errorf("shard plans beside an unsharded one: %q", why)
	}
}

// TestMaxPhaseGen: a lost state is rebuilt above the highest PHASE_GEN of every shard's
// parent, not only shard 0's (a Touched shard's parent may name a later generation).
func TestMaxPhaseGen(t *testing.T) {
	withGens := func(gens ...int64) []Member {
		shards := shardsOf(shardedState())
		for k, g := range gens {
			if g < 0 {
				shards[k].App = nil // its parent is missing
				continue
			}
			shards[k].App.Spec.Source.Plugin.Env = append(shards[k].App.Spec.Source.Plugin.Env,
				&v1alpha1.EnvEntry{Name: contract.EnvPhaseGen, Value: strconv.FormatInt(g, 10)})
		}
		return shards
	}
	for _, c := range []struct {
		name   string
		gen    int64
		shards []Member
		want   int64
	}{
		{"unsharded", 7, nil, 7},
		{"shard 0 highest", 9, withGens(9, 7, 8), 9},
		{"another shard higher", 7, withGens(7, 12, 8), 12},
		{"shard 0's parent missing", 0, withGens(-1, 5, 11), 11},
		{"no PHASE_GEN anywhere", 0, shardsOf(shardedState()), 0},
	} {
		if got := MaxPhaseGen(c.gen, c.shards); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
