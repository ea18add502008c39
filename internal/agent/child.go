package agent

import (
	"encoding/json"
	"fmt"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/agent/hookrun"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// childOf reads the hookrun.Dest of a per-cluster run whose kind reads the child when the
// run starts: the child rendered at the rollout's revision (render.ChildAt: a pre-hook's child
// is not admitted yet). Nil for any other run.
func (a *Agent) childOf(p *pass, st *state.State, act rollout.Action) *hookrun.Dest {
	if act.Cluster == "" || !hooks.ReadsChild(act.Hook) || st == nil || st.Rollout == nil {
		return nil
	}
	r := st.Rollout
	body := st.Revisions[r.Revision]
	if body == nil && p.plan.Revision == r.Revision {
		body = p.plan.Body
	}
	doc, err := a.renderer.ChildAt(a.childInput(p, st), r.Revision, body, act.Cluster, phaseName(p, act.Phase))
	if err != nil {
		return &hookrun.Dest{Err: fmt.Errorf("render child %s for its Job's project and namespace: %w", act.Cluster, err)}
	}
	var app v1alpha1.Application
	if err := json.Unmarshal(doc, &app); err != nil {
		return &hookrun.Dest{Err: fmt.Errorf("read child %s for its Job's project and namespace: %w", act.Cluster, err)}
	}
	return &hookrun.Dest{Project: app.Spec.GetProject(), Namespace: app.Spec.Destination.Namespace}
}
