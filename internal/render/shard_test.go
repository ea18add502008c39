package render_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/shard"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

type metaDoc struct {
	Metadata struct {
		Name        string
		Annotations map[string]string
	} `json:"metadata"`
}

func midRollout(t *testing.T) (*spec.Spec, *state.State, render.Input) {
	t.Helper()
	dir := filepath.Join("testdata", "mid-rollout-pinned")
	exprs := targets.NewCache(16)
	s, err := spec.Parse("spec.yaml", mustRead(t, filepath.Join(dir, "spec.yaml")), exprs)
	if err != nil {
		t.Fatal(err)
	}
	st, err := caseState(t, dir, s, exprs)
	if err != nil || st == nil {
		t.Fatal("no state:", err)
	}
	inv, err := inputs.InventoryFromFile(filepath.Join("testdata", "inventory.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s, st, render.Input{Spec: s, Inventory: inv, State: st, Env: render.Env{StateNamespace: "argocd", AppName: "fleet", PhaseGen: st.Generation}}
}

func renderDocs(t *testing.T, in render.Input) (metaDoc, map[string]string) {
	t.Helper()
	docs, err := render.New(8).Render(in)
	if err != nil {
		t.Fatal(err)
	}
	var plan metaDoc
	if err := json.Unmarshal(docs[0], &plan); err != nil {
		t.Fatal(err)
	}
	children := map[string]string{}
	for _, d := range docs[1:] {
		var m metaDoc
		if err := json.Unmarshal(d, &m); err != nil {
			t.Fatal(err)
		}
		children[m.Metadata.Name] = string(d)
	}
	return plan, children
}

// TestShardsSplitTheChildren: the shards of a render together are the unsharded render,
// byte for byte, each child in exactly one shard (its shard.Of), each shard's plan under its
// own name, saying its shard, view and count.
func TestShardsSplitTheChildren(t *testing.T) {
	_, st, in := midRollout(t)
	whole, all := renderDocs(t, in)
	if whole.Metadata.Name != "guestbook-plan" || whole.Metadata.Annotations[contract.AnnotationShard] != "" {
		t.Fatalf("unsharded plan %s %v: changed", whole.Metadata.Name, whole.Metadata.Annotations)
	}
	if len(all) < 3 {
		t.Fatalf("the case renders %d children: too few to shard", len(all))
	}
	seen := map[string]int{}
	for k := range 3 {
		in.Env.Shard = shard.Shard{K: k, N: 3}
		plan, part := renderDocs(t, in)
		if want := contract.ShardPlanConfigMap("guestbook", k); plan.Metadata.Name != want {
			t.Errorf("shard %d plan %s, want %s", k, plan.Metadata.Name, want)
		}
		view, n := render.ShardView(st, in.Env.Shard)
		a := plan.Metadata.Annotations
		if a[contract.AnnotationShard] != in.Env.Shard.String() || a[contract.AnnotationShardView] != view || a[contract.AnnotationShardChildren] != itoa(n) {
			t.Errorf("shard %d annotations %v, want view %s and %d children", k, a, view, n)
		}
		for name, doc := range part {
			seen[name]++
			if shard.Of(name, 3) != k {
				t.Errorf("shard %d rendered %s of shard %d", k, name, shard.Of(name, 3))
			}
			if all[name] != doc {
				t.Errorf("shard %d: %s differs from the unsharded render", k, name)
			}
		}
	}
	for name := range all {
		if seen[name] != 1 {
			t.Errorf("%s rendered by %d shards", name, seen[name])
		}
	}
}

// TestShardViewChangesOnlyForTouchedShards: admitting one child changes the view of its
// shard alone: the agent re-renders that shard, not the others.
func TestShardViewChangesOnlyForTouchedShards(t *testing.T) {
	_, st, _ := midRollout(t)
	r := st.Rollout
	if !r.Active() {
		t.Fatal("the case has no running rollout")
	}
	// take back the last admission: the child returns to what it ran (or is not rendered)
	var next string
	moved := st.Clone()
	for i := len(moved.Rollout.Phases) - 1; i >= 0 && next == ""; i-- {
		if ph := moved.Rollout.Phases[i]; len(ph.Admitted) > 0 {
			next = ph.Admitted[len(ph.Admitted)-1]
			moved.Rollout.Phases[i].Admitted = slices.Clone(ph.Admitted[:len(ph.Admitted)-1])
		}
	}
	if next == "" {
		t.Fatal("the case admitted nobody")
	}
	for k := range 3 {
		sh := shard.Shard{K: k, N: 3}
		before, _ := render.ShardView(st, sh)
		after, _ := render.ShardView(moved, sh)
		if touched := shard.Of(next, 3) == k; (before != after) != touched {
			t.Errorf("shard %d: view changed %v, touched %v (took back %s)", k, before != after, touched, next)
		}
	}
	if a, b := render.ShardView(nil, shard.Shard{K: 0, N: 2}); a == "" || b != 0 {
		t.Errorf("nil state: view %q, %d children", a, b)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestShardViewChangesOnRemoval: recording a child's removal (Removing, then Leaving)
// changes the view of its shard alone, so the agent re-renders that shard and deletes the
// child only after a render that may leave it out.
func TestShardViewChangesOnRemoval(t *testing.T) {
	_, st, _ := midRollout(t)
	if len(st.Children) == 0 {
		t.Fatal("the case deploys nobody")
	}
	x := st.Children[0]
	removing, leaving := st.Clone(), st.Clone()
	removing.Removing = append(removing.Removing, x)
	leaving.Leaving = append(leaving.Leaving, x)
	for _, tc := range []struct {
		name  string
		moved *state.State
	}{
		{"removing", removing},
		{"leaving", leaving},
	} {
		for k := range 3 {
			sh := shard.Shard{K: k, N: 3}
			before, _ := render.ShardView(st, sh)
			after, _ := render.ShardView(tc.moved, sh)
			if touched := shard.Of(x, 3) == k; (before != after) != touched {
				t.Errorf("%s %s: shard %d view changed %v, touched %v", tc.name, x, k, before != after, touched)
			}
		}
	}
}

// TestBoundedParamsRenderTheSame: a renderer that keeps one revision's parameters, so
// that a render of two revisions generates them again each time, renders byte for byte
// as one that keeps them all, render after render.
func TestBoundedParamsRenderTheSame(t *testing.T) {
	_, _, in := midRollout(t)
	want, err := render.New(8).Render(in)
	if err != nil {
		t.Fatal(err)
	}
	r := render.NewBounded(8, 1)
	for i := range 3 {
		got, err := r.Render(in)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, want, func(a, b []byte) bool { return string(a) == string(b) }) {
			t.Fatalf("render %d differs from the unbounded renderer's", i+1)
		}
	}
}
