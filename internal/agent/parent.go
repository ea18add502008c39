package agent

import (
	"context"
	"encoding/json"
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// annotateParent writes the rollout's state onto its parent Application's annotations
// (want, status.Parent of st: status, phase, admitted, what it waits for, revision, rollout id) with a
// merge patch of those keys only, and only when one differs from what the parent carries
// and from what this agent patched last: at most one patch a state write. A failure is
// logged, never the pass's: the rollout does not wait on its own display.
func (a *Agent) annotateParent(ctx context.Context, p *pass, st *state.State, want map[string]string) {
	if st == nil || p.parent == nil || p.plan.Parent == "" {
		return
	}
	mem := a.memoryOf(p.plan.Rollout)
	if maps.Equal(want, mem.Parent()) || carries(p.parent.Annotations, want) {
		return
	}
	patch, err := annotationPatch(want)
	if err == nil {
		_, err = a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Patch(ctx, p.plan.Parent, types.MergePatchType, patch, metav1.PatchOptions{})
	}
	if err != nil {
		p.log.Warn("parent annotations not written", "parent", p.plan.Parent, "error", err)
		return
	}
	mem.SetParent(want)
}

// carries reports whether annotations hold want ("" values: absent).
func carries(annotations, want map[string]string) bool {
	for k, v := range want {
		if got, ok := annotations[k]; got != v || (v == "" && ok) {
			return false
		}
	}
	return true
}

// annotationPatch sets want's annotations, removing those that say nothing ("").
func annotationPatch(want map[string]string) ([]byte, error) {
	ann := map[string]any{}
	for k, v := range want {
		if v == "" {
			ann[k] = nil
		} else {
			ann[k] = v
		}
	}
	return json.Marshal(map[string]any{"metadata": map[string]any{"annotations": ann}})
}
