package render

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// Plan ConfigMap keys.
const (
	PlanSpecKey     = "spec.json"   // the revision (generators, template) the agent stores in state
	PlanPhasesKey   = "phases.json" // the normalised phases, hooks and checks
	PlanRevisionKey = "revision"    // the revision id (content hash)
	LabelPlan       = "cmp-phase.io/plan"
	maxPlanBytes    = 900 << 10
)

// PlanName is the name of the plan ConfigMap of a rollout.
func PlanName(rollout string) string { return rollout + "-plan" }

// planPhase is the normalised phase as the agent reads it.
type planPhase struct {
	Name           string      `json:"name"`
	Targets        any         `json:"targets,omitempty"`
	MatchAppLabels bool        `json:"matchAppLabels,omitempty"`
	Size           spec.Size   `json:"size"`
	PreHooks       []spec.Hook `json:"preHooks,omitempty"`
	PostHooks      []spec.Hook `json:"postHooks,omitempty"`
	Checks         []spec.Hook `json:"checks,omitempty"`
	WaitDuration   string      `json:"waitDuration,omitempty"`
	OnFailure      string      `json:"onFailure"`
}

// writePlan writes the plan ConfigMap: what the agent needs to drive the rollout of this
// revision. Its generation annotation tells the agent which state this render saw.
func planDoc(in Input, body []byte, id string) ([]byte, error) {
	phases := make([]planPhase, len(in.Spec.Phases))
	for i, p := range in.Spec.Phases {
		phases[i] = planPhase{
			Name: p.Name, Targets: p.Targets, MatchAppLabels: p.MatchAppLabels, Size: p.Size,
			PreHooks: p.PreHooks, PostHooks: p.PostHooks, Checks: p.Checks, OnFailure: p.OnFailure,
		}
		if p.WaitDuration > 0 {
			phases[i].WaitDuration = p.WaitDuration.String()
		}
	}
	pb, err := json.Marshal(map[string]any{"dialect": in.Spec.Dialect, "deletionOrder": in.Spec.DeletionOrder, "phases": phases})
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	var gen int64
	if in.State != nil {
		gen = in.State.Generation
	}
	cm := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{
			"name": PlanName(in.Spec.Name), "namespace": in.Env.StateNamespace,
			"labels":      map[string]string{LabelPlan: "true", LabelRollout: in.Spec.Name},
			"annotations": map[string]string{AnnotationGeneration: strconv.FormatInt(gen, 10), AnnotationSyncOpts: DefaultSyncOptions},
		},
		"data": map[string]string{PlanSpecKey: string(body), PlanPhasesKey: string(pb), PlanRevisionKey: id},
	}
	b, err := json.Marshal(cm)
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	if len(b) > maxPlanBytes {
		return nil, fmt.Errorf("plan is %d bytes, over the limit of %d (fix: move large list generator elements into cluster labels)", len(b), maxPlanBytes)
	}
	return b, nil
}
