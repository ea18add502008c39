package agent

import (
	"context"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/cmp-phase/cmp-phase/internal/agent/rerender"
)

// named is what an agent remembers of a re-render it asked for.
type named struct {
	asked       time.Time // when
	set, before int64     // the PHASE_GEN it set, and the one the parent named before
	wrote       string    // the parent's resourceVersion its write made ("": unknown)
	uid         types.UID // … of the parent object it wrote to
	// since is when a shard's view first differed from its plan: kept while the agent
	// asks again (asked moves on), cleared only when the shard's render arrives.
	since time.Time
}

// viewOf is rerender.ViewOf with what this agent remembers of its ask.
func viewOf(parent *v1alpha1.Application, planGen, view int64, mem named) rerender.View {
	return rerender.ViewOf(parent, planGen, view, rerender.Asked{At: mem.asked, Set: mem.set, Before: mem.before})
}

// namePhaseGen is the protocol's SetPhaseGen for a parent the cache holds as cached: it
// sets PHASE_GEN to gen and returns the memory of it and asked, unless this agent set it
// to gen already and the cache holds a version of the parent older than that write (its
// own write is not in the cache yet: writing again would only meet a failed test and a
// read), when it returns the memory and the time asked as they were. Such a pass decides
// from what it would have decided from had it written (a write changes no cached object),
// Enact included; it assumes what the protocol assumes of every pass, that nothing but
// this agent sets PHASE_GEN back within the cache's lag (a git-managed parent ignores the
// plugin env, see docs/concepts.md). Versions are compared as Kubernetes allows
// (resourceversion.CompareResourceVersion); one that does not compare, another object
// (a parent recreated, or another one named), and a wait of --confirm-after (a write lost
// to an etcd restore, whose versions went back) are written again.
func (a *Agent) namePhaseGen(ctx context.Context, p *pass, parent string, cached *v1alpha1.Application, gen int64, mem named, asked time.Time, logAttrs ...any) (named, time.Time, error) {
	if cached != nil && mem.set == gen && !mem.asked.IsZero() && cached.UID == mem.uid &&
		asked.Before(mem.asked.Add(a.opts.ConfirmAfter)) && older(cached.ResourceVersion, mem.wrote) {
		return mem, mem.asked, nil
	}
	wrote, err := a.setPhaseGen(ctx, p, parent, cached, gen, logAttrs...)
	if err != nil {
		return mem, asked, err
	}
	mem.set, mem.before, mem.wrote, mem.uid = gen, -1, wrote, ""
	if cached != nil {
		mem.before, mem.uid = rerender.PhaseGen(cached), cached.UID
	}
	return mem, asked, nil
}

// older reports whether resourceVersion rv is older than wrote (false when either does not
// compare).
func older(rv, wrote string) bool {
	c, err := resourceversion.CompareResourceVersion(rv, wrote)
	return err == nil && c < 0
}

// setPhaseGen is rerender.SetPhaseGen from the cached parent: one JSON patch that tests the plugin
// env is still what the cache holds and replaces it (no read, and the parent's status
// writes, which change its resourceVersion all the time, cannot make it conflict);
// rerender.WritePhaseGen's read and retry when the test fails or the cache holds no env to test.
// It logs the request (with logAttrs), runs the fault hook after it and returns the
// resourceVersion it wrote ("": none, it was set already).
func (a *Agent) setPhaseGen(ctx context.Context, p *pass, parent string, cached *v1alpha1.Application, gen int64, logAttrs ...any) (string, error) {
	var (
		wrote string
		err   error
	)
	switch patch, ok := rerender.PhaseGenPatch(cached, gen); {
	case ok && patch == nil: // already there: no write
	case ok:
		var patched *v1alpha1.Application
		if patched, err = a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Patch(ctx, parent, types.JSONPatchType, patch, metav1.PatchOptions{}); err == nil {
			wrote = patched.ResourceVersion
		} else {
			wrote, err = rerender.WritePhaseGen(ctx, a.argo, a.opts.Namespace, parent, gen) // the env changed meanwhile (its error names the parent)
		}
	default:
		wrote, err = rerender.WritePhaseGen(ctx, a.argo, a.opts.Namespace, parent, gen)
	}
	if err != nil {
		return "", err
	}
	p.log.Info("re-render requested", append([]any{"parent", parent, "generation", gen}, logAttrs...)...)
	if a.faults.AfterRerender != nil {
		a.faults.AfterRerender(p.plan.Rollout, gen)
	}
	return wrote, nil
}
