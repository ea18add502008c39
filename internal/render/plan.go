package render

import (
	"github.com/cmp-phase/cmp-phase/internal/plan"
)

// planDoc encodes the plan ConfigMap: what the agent needs to drive the rollout of this
// revision (plan.Plan). Its generation annotation tells the agent which state this render
// saw.
// leftOut are the unselected children left out of the render (unselected.go).
func planDoc(in Input, body []byte, id string, leftOut map[string]string) ([]byte, error) {
	p := plan.New(in.Spec, id, body)
	p.Namespace, p.Parent = in.Env.StateNamespace, in.Env.AppName
	p.Children = &plan.ChildEnv{Namespace: childNamespace(in), SyncOptions: syncOptions(in.Env)}
	p.Unphased, p.LeftOut = in.Unphased, leftOut
	if in.State != nil {
		// The last render-relevant generation: renders of states that differ only in
		// statuses are then identical (no spurious OutOfSync); the agent confirms a
		// re-render against this one.
		p.Generation = in.State.Generation
		if in.State.ViewGeneration > 0 {
			p.Generation = in.State.ViewGeneration
		}
		p.Others = in.State.Revisions
	}
	obj, err := p.Object()
	if err != nil {
		return nil, err
	}
	shardPlan(obj["metadata"].(map[string]any), in)
	return plan.Encode(obj)
}
