package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// startParentSync starts an automated parent's sync of the render its PHASE_GEN names (gen)
// — the sync Argo CD's automated sync starts after its comparison of that render, without
// waiting for the comparison — after the agent moved the children that render moves, so it
// applies nothing the agent has not applied already. It is the patch parentSyncPatch makes:
// only while no operation is pending and the spec still names gen. Not starting it loses
// nothing (the parent's automated sync starts it), so a refusal is logged, not returned.
func (a *Agent) startParentSync(ctx context.Context, p *pass, parent string, cached *v1alpha1.Application, gen int64) {
	patch, err := parentSyncPatch(cached, gen)
	if err == nil {
		_, err = a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Patch(ctx, parent, types.JSONPatchType, patch, metav1.PatchOptions{})
	}
	if err != nil {
		p.log.Info("parent sync not started", "parent", parent, "generation", gen, "error", err)
		return
	}
	p.log.Info("parent sync started", "parent", parent, "generation", gen)
	if a.faults.AfterParentSync != nil {
		a.faults.AfterParentSync(p.plan.Rollout, gen)
	}
}

// parentSyncPatch is the JSON patch that sets the cached parent's operation to its
// automated sync (automatedSync) of its source naming gen in PHASE_GEN, on the conditions
// that no operation is pending and its plugin env is that source's: the sync's source
// names the render the agent enacted, whatever the parent names by the time it runs.
func parentSyncPatch(cached *v1alpha1.Application, gen int64) ([]byte, error) {
	if cached == nil || cached.Spec.Source == nil || cached.Spec.Source.Plugin == nil {
		return nil, errNoPluginSource
	}
	src := cached.Spec.Source.DeepCopy()
	setEnv(src.Plugin, strconv.FormatInt(gen, 10))
	op := automatedSync(&cached.Spec)
	op.Sync.Source = src
	return json.Marshal([]map[string]any{
		{"op": "test", "path": "/spec/source/plugin/env", "value": src.Plugin.Env},
		{"op": "test", "path": "/operation", "value": nil}, // a missing member tests as null
		{"op": "add", "path": "/operation", "value": op},
	})
}

// errNoPluginSource says a parent has no plugin source to sync.
var errNoPluginSource = errors.New("the parent has no plugin source")

// parentCanSync reports whether the parent's AppProject lets its automated sync run now
// (Argo CD's own test of its sync windows); a project the cache does not hold does not.
func (a *Agent) parentCanSync(parent *v1alpha1.Application) bool {
	if parent == nil || a.caches == nil || a.caches.projects == nil {
		return false
	}
	proj, err := a.caches.projects.Get(parent.Spec.GetProject())
	if err != nil {
		return false
	}
	ok, err := proj.Spec.SyncWindows.Matches(parent).CanSync(false, nil)
	return ok && err == nil
}

// syncParentAfterMoves is startParentSync when the protocol asks for it (d) and this pass
// made every move it owes (a parent syncing while moves remain would make them itself);
// gen is the PHASE_GEN the parent names now. The agent remembers it under key, so it
// starts one sync per view, whatever the parent does with it.
func (a *Agent) syncParentAfterMoves(ctx context.Context, p *pass, d rerender, key, parent string, cached *v1alpha1.Application, gen, view int64) {
	if !d.SyncParent || p.moreMoves {
		return
	}
	mem := a.remembered(key)
	mem.started = view
	a.remember(key, mem)
	a.startParentSync(ctx, p, parent, cached, gen)
}
