package shardset

import (
	"fmt"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/agent/rerender"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/shard"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Member is what a reconcile read of one shard of a sharded rollout: its plan and the
// parent that rendered it.
type Member struct {
	Shard    shard.Shard // K of the rollout's N
	Plan     string      // its plan ConfigMap's name
	Found    bool        // the plan exists
	Says     string      // the SHARD its plan says it rendered
	Parent   string      // the parent the plan names
	App      *v1alpha1.Application
	Revision string
	View     string // the shard view its render saw (render.ShardView)
	PlanGen  int64
	Children int
	// ChildEnv is how its render renders children (the plan's contract.PlanChildrenKey):
	// the agent moves every shard's children with shard 0's, so shards must agree on it.
	ChildEnv string
}

// Conflict is why the plans of a rollout disagree on its shards: a plan of a shard
// whose N is not shard 0's (a parent of another N, or a stale plan of an old one), or
// shard plans beside an unsharded shard-0 plan — a child could then be rendered by two
// parents. "" when they agree.
func Conflict(parent0 string, sh0 shard.Shard, plans []*corev1.ConfigMap) string {
	for _, cm := range plans {
		says := cm.Annotations[contract.AnnotationShard]
		sh, err := shard.Parse(says)
		if cm.Name == contract.PlanConfigMap(cm.Labels[contract.LabelRollout]) || (says == "" && err == nil) {
			continue // shard 0's own plan, or a plan of no shard (only shard 0's name is one)
		}
		if err != nil || sh.N != sh0.N {
			zero := "renders every child (no " + contract.EnvShard + ")"
			if sh0.Sharded() {
				zero = "says " + contract.EnvShard + "=" + sh0.String()
			}
			return fmt.Sprintf("shard plans disagree: plan %s of parent %q says %s=%s, shard 0's parent %q %s (fix: the same N on every parent of the rollout; delete parents and plans of an old N)",
				cm.Name, cm.Annotations[contract.AnnotationParent], contract.EnvShard, says, parent0, zero)
		}
	}
	return ""
}

// Hold is why the shards of a rollout hold it, "" when every shard is there: its plan
// rendered by a live parent of the same N, without a render error, at the revision of shard
// 0, and a Touched shard's render not overdue (since is when each shard's view first
// differed from its plan, by shard — asking again does not move it; zero: not known).
// Pure; the first shard that holds is named, with the fix.
func Hold(shards []Member, st *state.State, since map[int]time.Time, now time.Time, overdue time.Duration) string {
	views := Views(st, shards)
	for _, s := range shards {
		if why := oneHolds(s, shards[0], st, views, since[s.Shard.K], now, overdue); why != "" {
			return "shard " + s.Shard.String() + ": " + why
		}
	}
	return ""
}

func oneHolds(s, first Member, st *state.State, views []render.View, since, now time.Time, overdue time.Duration) string {
	fix := fmt.Sprintf("a parent with plugin env %s=%s", contract.EnvShard, s.Shard)
	switch {
	case !s.Found:
		return fmt.Sprintf("no plan %s: no parent has rendered it (fix: create %s)", s.Plan, fix)
	case s.Says != s.Shard.String():
		return fmt.Sprintf("parent %q renders %s=%q, shard 0 says N=%d (fix: the same N on every parent of the rollout, %s)", s.Parent, contract.EnvShard, s.Says, s.Shard.N, fix)
	case s.App == nil:
		return fmt.Sprintf("parent %q missing (fix: recreate it, %s)", s.Parent, fix)
	}
	if env := envOf(s.App, contract.EnvShard); env != s.Shard.String() {
		return fmt.Sprintf("parent %q has %s=%q, its plan says %s (fix: %s, or wait for its render)", s.Parent, contract.EnvShard, env, s.Shard, fix)
	}
	if msg := renderError(s.App); msg != "" {
		return fmt.Sprintf("parent %q fails to render: %s", s.Parent, msg)
	}
	if s.Revision != first.Revision {
		return fmt.Sprintf("parent %q renders revision %s, shard 0 revision %s (waiting for it to render the same commit)", s.Parent, s.Revision, first.Revision)
	}
	if s.ChildEnv != first.ChildEnv {
		return fmt.Sprintf("parent %q renders children with %s, shard 0's parent %q with %s (fix: the same child namespace and sync options on every parent of the rollout; the agent moves every shard's children with shard 0's)",
			s.Parent, orNone(s.ChildEnv), first.Parent, orNone(first.ChildEnv))
	}
	if st != nil && s.View != Digest(views, st, s) && automated(s.App) && !since.IsZero() && now.Sub(since) >= overdue {
		// since, not the time elapsed: the reason is recorded in the state and told once per
		// reason, and a reason changing every second wrote the state and an Event each pass
		return fmt.Sprintf("parent %q has not rendered state generation %d since %s", s.Parent, st.ViewGeneration, since.UTC().Format(time.RFC3339))
	}
	return ""
}

// orNone is s, or "none" when empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// envOf is the value of a parent's plugin env name, "" when unset.
func envOf(app *v1alpha1.Application, name string) string {
	if src := app.Spec.Source; src != nil && src.Plugin != nil {
		for _, e := range src.Plugin.Env {
			if e != nil && e.Name == name {
				return strings.TrimSpace(e.Value)
			}
		}
	}
	return ""
}

// renderError is the message of a parent's ComparisonError, "" when its render succeeded.
func renderError(app *v1alpha1.Application) string {
	for _, c := range app.Status.Conditions {
		if c.Type == v1alpha1.ApplicationConditionComparisonError {
			return c.Message
		}
	}
	return ""
}

// automated reports whether a parent syncs itself (one that does not waits for a person's
// sync, which is no failed render).
func automated(app *v1alpha1.Application) bool {
	sp := app.Spec.SyncPolicy
	return sp != nil && sp.IsAutomatedSyncEnabled()
}

// MaxPhaseGen is the highest generation a rollout's parents name in PHASE_GEN: gen (shard
// 0's parent's) or a shard parent's. A lost state is rebuilt above it — a Touched shard's
// parent may name a later generation than shard 0's, and a state below a PHASE_GEN is
// one its parent's renders refuse as stale.
func MaxPhaseGen(gen int64, shards []Member) int64 {
	for _, s := range shards {
		if s.App != nil {
			gen = max(gen, rerender.PhaseGen(s.App))
		}
	}
	return gen
}

// Views is render.ShardViews of the rollout's shards: one walk of the state for every
// shard, on each pass (nil without a state, or when the shards disagree on N).
func Views(st *state.State, shards []Member) []render.View {
	if st == nil || len(shards) == 0 {
		return nil
	}
	for _, s := range shards {
		if s.Shard.N != shards[0].Shard.N {
			return nil
		}
	}
	return render.ShardViews(st, shards[0].Shard.N)
}

// Digest is shard s's view of st: from views when they have it.
func Digest(views []render.View, st *state.State, s Member) string {
	if s.Shard.K >= 0 && s.Shard.K < len(views) {
		return views[s.Shard.K].Digest
	}
	d, _ := render.ShardView(st, s.Shard)
	return d
}

// TeardownHold is why the teardown of a sharded rollout (its shard 0 parent deleted)
// waits: the other shard parents still there still render their children, and would
// apply them again (or hold them) behind the teardown; "" once every other one is gone.
func TeardownHold(shards []Member) string {
	var left []string
	for _, s := range shards {
		if s.Shard.K > 0 && s.App != nil {
			left = append(left, s.Parent)
		}
	}
	if len(left) == 0 {
		return ""
	}
	return fmt.Sprintf("the children are removed once the other shard parents are gone too: %s still there (fix: delete them)", strings.Join(left, ", "))
}

// Touched reports whether the state changed what shard s renders since its plan (view:
// the shard's view of the state, Digest): its render of the state has not arrived (a shard
// without a plan is Touched: it renders nothing).
func Touched(s Member, view string) bool {
	return !s.Found || s.View != view
}
