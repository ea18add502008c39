package agent

import (
	"encoding/json"
	"fmt"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// childDest is what a per-cluster run of a kind that reads the child (hooks.ReadsChild:
// a job hook's) needs of its child: the AppProject and the destination namespace, as the
// rollout's revision renders the child; or why it cannot tell.
type childDest struct {
	project, namespace string
	err                error
}

// childOf reads the childDest of a per-cluster run whose kind reads the child when the run
// starts: the child rendered at the rollout's revision (render.ChildAt: a pre-hook's child
// is not admitted yet). Nil for any other run.
func (a *Agent) childOf(p *pass, st *state.State, act rollout.Action) *childDest {
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
		return &childDest{err: fmt.Errorf("render child %s for its Job's project and namespace: %w", act.Cluster, err)}
	}
	var app v1alpha1.Application
	if err := json.Unmarshal(doc, &app); err != nil {
		return &childDest{err: fmt.Errorf("read child %s for its Job's project and namespace: %w", act.Cluster, err)}
	}
	return &childDest{project: app.Spec.GetProject(), namespace: app.Spec.Destination.Namespace}
}

// target is where the run goes: the cluster the template variables name (the
// inventory's), the child's project and destination namespace.
func (d *childDest) target(child string, vars map[string]string) (*hooks.Target, error) {
	if d.err != nil {
		return nil, d.err
	}
	if vars["name"] == "" || vars["server"] == "" {
		return nil, fmt.Errorf("the cluster of child %s is not in the inventory", child)
	}
	return &hooks.Target{Cluster: vars["name"], Server: vars["server"], Project: d.project, Namespace: d.namespace}, nil
}
