package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// maxPlanBytes bounds the plan ConfigMap.
const maxPlanBytes = 900 << 10

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
	// Extensions, omitted when unset so plans of specs without them stay as they were.
	ProgressDeadline string `json:"progressDeadline,omitempty"`
	MaxFailures      int    `json:"maxFailures,omitempty"`
	// Throttle: a composed spec's step maxUpdate (absent: no throttle).
	Throttle *spec.Size `json:"throttle,omitempty"`
	// Order and Spread: how the phase lines its members up (absent: child-name order).
	Order  string `json:"order,omitempty"`
	Spread string `json:"spread,omitempty"`
	// Approval: the phase's approval gate (absent: none, or maxUpdate: 0's in Size).
	Approval *spec.Approval `json:"approval,omitempty"`
	// Windows: the phase's own allow and deny windows.
	Windows []spec.Window `json:"windows,omitempty"`
	// Tracks: the expression splitting the rollout from this phase on (absent: none).
	Tracks string `json:"tracks,omitempty"`
}

// planDoc encodes the plan ConfigMap: what the agent needs to drive the rollout of this
// revision. Its generation annotation tells the agent which state this render saw.
func planDoc(in Input, body []byte, id string) ([]byte, error) {
	phases := make([]planPhase, len(in.Spec.Phases))
	for i, p := range in.Spec.Phases {
		phases[i] = planPhase{
			Name: p.Name, Targets: p.Targets, MatchAppLabels: p.MatchAppLabels, Size: p.Size,
			PreHooks: p.PreHooks, PostHooks: p.PostHooks, Checks: p.Checks, OnFailure: p.OnFailure,
			Approval: p.Approval,
		}
		if p.WaitDuration > 0 {
			phases[i].WaitDuration = p.WaitDuration.String()
		}
		if p.ProgressDeadline > 0 {
			phases[i].ProgressDeadline = p.ProgressDeadline.String()
		}
		phases[i].MaxFailures = p.MaxFailures
		phases[i].Order, phases[i].Spread = p.Ordering.Order, p.Ordering.Spread
		if p.Throttle.Kind != spec.SizeAll {
			phases[i].Throttle = &p.Throttle
		}
		phases[i].Windows = p.Windows
		phases[i].Tracks = p.Tracks.Src
	}
	doc := map[string]any{"dialect": in.Spec.Dialect, "deletionOrder": in.Spec.DeletionOrder, "phases": phases}
	if in.Spec.LateJoiners == spec.LateJoinersJoin {
		doc["lateJoiners"] = in.Spec.LateJoiners
	}
	if in.Spec.ConfirmRemoval {
		doc["confirmRemoval"] = true
	}
	if in.Spec.MaxFailures.Kind != spec.SizeAll {
		doc["maxFailures"] = in.Spec.MaxFailures // the rollout-wide budget; absent: none
	}
	if len(in.Spec.Windows) > 0 {
		doc["windows"] = in.Spec.Windows
	}
	pb, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	cb, err := json.Marshal(ChildEnv{Namespace: childNamespace(in), SyncOptions: syncOptions(in.Env)})
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	var gen int64
	data := map[string]string{contract.PlanSpecKey: string(body), contract.PlanPhasesKey: string(pb), contract.PlanRevisionKey: id, contract.PlanChildrenKey: string(cb)}
	if len(in.Unphased) > 0 {
		ub, err := json.Marshal(boundUnphased(in.Unphased))
		if err != nil {
			return nil, fmt.Errorf("encode plan: %w", err)
		}
		data[contract.PlanUnphasedKey] = string(ub)
	}
	if in.State != nil {
		// The last render-relevant generation: renders of states that differ only in
		// statuses are then identical (no spurious OutOfSync); the agent confirms a
		// re-render against this one.
		gen = in.State.Generation
		if in.State.ViewGeneration > 0 {
			gen = in.State.ViewGeneration
		}
		if others := maps.Clone(in.State.Revisions); len(others) > 0 {
			delete(others, id)
			if len(others) > 0 {
				rb, err := json.Marshal(others)
				if err != nil {
					return nil, fmt.Errorf("encode plan: %w", err)
				}
				data[contract.PlanRevisionsKey] = string(rb)
			}
		}
	}
	cm := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{
			"name": contract.PlanConfigMap(in.Spec.Name), "namespace": in.Env.StateNamespace,
			"labels": map[string]string{contract.LabelPlan: contract.MarkerValue, contract.LabelRollout: in.Spec.Name},
			"annotations": map[string]string{contract.AnnotationGeneration: strconv.FormatInt(gen, 10),
				contract.AnnotationSyncOptions: contract.PlanSyncOptions, contract.AnnotationParent: in.Env.AppName},
		},
		"data": data,
	}
	shardPlan(cm["metadata"].(map[string]any), in)
	b, err := json.Marshal(cm)
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	if len(b) > maxPlanBytes {
		return nil, fmt.Errorf("plan is %d bytes, over the limit of %d (fix: move large list generator elements into cluster labels)", len(b), maxPlanBytes)
	}
	return b, nil
}

// ChildEnv is what a render reads from the parent's environment to render children.
type ChildEnv struct {
	Namespace   string `json:"namespace"`
	SyncOptions string `json:"syncOptions"`
}

// Plan is a decoded plan ConfigMap: what the agent drives.
type Plan struct {
	Rollout   string
	Parent    string
	Namespace string
	Revision  string
	Body      []byte
	Phases    []spec.Phase
	// Others are the other revisions the state kept when the plan was rendered (id → body).
	Others map[string]json.RawMessage
	// LateJoiners is spec.LateJoinersDefer or spec.LateJoinersJoin.
	LateJoiners string
	// Unphased are children following a moving ref the plugin cannot see (child → repo@ref).
	Unphased map[string]string
	// ConfirmRemoval: no child is removed before a person confirms it.
	ConfirmRemoval bool
	// MaxFailures is the rollout-wide failure budget (spec.Budget); SizeAll: none.
	MaxFailures spec.Size
	// DeletionOrder is how children are removed: spec.DeletionReverse or
	// spec.DeletionAllAtOnce (spec.RemovalOrder of what the spec says).
	DeletionOrder string
	// Children is how the render that wrote the plan renders children (nil: a plan from
	// before it said so).
	Children *ChildEnv
	// Windows are the rollout's allow and deny windows (compiled).
	Windows []spec.Window
}

// PhaseNames are the names of the plan's phases, in order: what a steering edit may name.
func (p *Plan) PhaseNames() []string {
	names := make([]string, len(p.Phases))
	for i, ph := range p.Phases {
		names[i] = ph.Name
	}
	return names
}

// DecodePlan reads a plan ConfigMap back, compiling the phases' targets.
func DecodePlan(cm *corev1.ConfigMap, exprs *targets.Cache) (*Plan, error) {
	p := &Plan{Rollout: cm.Labels[contract.LabelRollout], Parent: cm.Annotations[contract.AnnotationParent], Namespace: cm.Namespace,
		Revision: cm.Data[contract.PlanRevisionKey], Body: []byte(cm.Data[contract.PlanSpecKey])}
	if p.Rollout == "" || p.Revision == "" || len(p.Body) == 0 {
		return nil, fmt.Errorf("plan %s/%s is incomplete (fix: let the parent re-render it)", cm.Namespace, cm.Name)
	}
	if id, err := spec.IDOf(p.Body); err != nil || id != p.Revision {
		return nil, fmt.Errorf("plan %s/%s: revision %s does not match its spec (fix: let the parent re-render it)", cm.Namespace, cm.Name, p.Revision)
	}
	var doc struct {
		LateJoiners    string        `json:"lateJoiners"`
		ConfirmRemoval bool          `json:"confirmRemoval"`
		DeletionOrder  string        `json:"deletionOrder"`
		Windows        []spec.Window `json:"windows"`
		Phases         []struct {
			planPhase
			Targets []targets.Target `json:"targets,omitempty"`
		} `json:"phases"`

		MaxFailures *spec.Size `json:"maxFailures"` // the rollout-wide budget
	}
	if err := json.Unmarshal([]byte(cm.Data[contract.PlanPhasesKey]), &doc); err != nil {
		return nil, fmt.Errorf("plan %s/%s: %w", cm.Namespace, cm.Name, err)
	}
	for _, d := range doc.Phases {
		ph := spec.Phase{Name: d.Name, Targets: d.Targets, MatchAppLabels: d.MatchAppLabels, Size: d.Size,
			PreHooks: d.PreHooks, PostHooks: d.PostHooks, Checks: d.Checks, OnFailure: d.OnFailure}
		for i := range ph.Targets {
			if err := ph.Targets[i].Compile(exprs); err != nil {
				return nil, fmt.Errorf("plan %s/%s phase %s: %w", cm.Namespace, cm.Name, d.Name, err)
			}
		}
		if err := planDurations(&ph, d.WaitDuration, d.ProgressDeadline); err != nil {
			return nil, fmt.Errorf("plan %s/%s phase %s: %w", cm.Namespace, cm.Name, d.Name, err)
		}
		ph.MaxFailures = d.MaxFailures
		ph.Ordering = targets.Ordering{Order: d.Order, Spread: d.Spread}
		if err := ph.Ordering.Compile(exprs); err != nil {
			return nil, fmt.Errorf("plan %s/%s phase %s: %w", cm.Namespace, cm.Name, d.Name, err)
		}
		if ph.Approval = d.Approval; ph.Approval != nil && ph.Approval.Required < 1 {
			return nil, fmt.Errorf("plan %s/%s phase %s: approval.required is %d, at least 1 opens a gate (fix: let the parent re-render it)", cm.Namespace, cm.Name, d.Name, ph.Approval.Required)
		}
		if d.Throttle != nil {
			ph.Throttle = *d.Throttle
		}
		ph.Windows = d.Windows
		if err := spec.CompileWindows(ph.Windows); err != nil {
			return nil, fmt.Errorf("plan %s/%s phase %s: %w", cm.Namespace, cm.Name, d.Name, err)
		}
		ph.Tracks = spec.Tracks{Src: d.Tracks}
		if err := ph.Tracks.Compile(exprs); err != nil {
			return nil, fmt.Errorf("plan %s/%s phase %s: %w", cm.Namespace, cm.Name, d.Name, err)
		}
		p.Phases = append(p.Phases, ph)
	}
	if b := cm.Data[contract.PlanRevisionsKey]; b != "" {
		if err := json.Unmarshal([]byte(b), &p.Others); err != nil {
			return nil, fmt.Errorf("plan %s/%s %s: %w", cm.Namespace, cm.Name, contract.PlanRevisionsKey, err)
		}
	}
	if b := cm.Data[contract.PlanUnphasedKey]; b != "" {
		if err := json.Unmarshal([]byte(b), &p.Unphased); err != nil {
			return nil, fmt.Errorf("plan %s/%s %s: %w", cm.Namespace, cm.Name, contract.PlanUnphasedKey, err)
		}
	}
	if b := cm.Data[contract.PlanChildrenKey]; b != "" {
		p.Children = &ChildEnv{}
		if err := json.Unmarshal([]byte(b), p.Children); err != nil {
			return nil, fmt.Errorf("plan %s/%s %s: %w", cm.Namespace, cm.Name, contract.PlanChildrenKey, err)
		}
	}
	p.ConfirmRemoval = doc.ConfirmRemoval
	if p.MaxFailures = (spec.Size{Kind: spec.SizeAll}); doc.MaxFailures != nil {
		if k := doc.MaxFailures.Kind; k != spec.SizeCount && k != spec.SizePercent || doc.MaxFailures.Value < 0 {
			return nil, fmt.Errorf("plan %s/%s: invalid maxFailures %+v (fix: let the parent re-render it)", cm.Namespace, cm.Name, *doc.MaxFailures)
		}
		p.MaxFailures = *doc.MaxFailures
	}
	p.Windows = doc.Windows
	if err := spec.CompileWindows(p.Windows); err != nil {
		return nil, fmt.Errorf("plan %s/%s: %w", cm.Namespace, cm.Name, err)
	}
	if p.DeletionOrder = spec.RemovalOrder(doc.DeletionOrder); p.DeletionOrder != spec.DeletionReverse && p.DeletionOrder != spec.DeletionAllAtOnce {
		return nil, fmt.Errorf("plan %s/%s: unknown deletionOrder %q (fix: let the parent re-render it)", cm.Namespace, cm.Name, doc.DeletionOrder)
	}
	p.LateJoiners = spec.LateJoinersDefer
	if doc.LateJoiners == spec.LateJoinersJoin {
		p.LateJoiners = spec.LateJoinersJoin
	}
	return p, nil
}

// planDurations parses a plan phase's waitDuration and progressDeadline.
func planDurations(ph *spec.Phase, wait, deadline string) error {
	var err error
	if wait != "" {
		if ph.WaitDuration, err = time.ParseDuration(wait); err != nil {
			return err
		}
	}
	if deadline != "" {
		if ph.ProgressDeadline, err = time.ParseDuration(deadline); err != nil {
			return err
		}
	}
	return nil
}

// Bounds of what the plan (and from it the state) says is not phased: the state is one
// ConfigMap of at most 1 MiB, and a fleet of 10,000 children deploying an image by tag
// must not fill it. Past the bound, one entry says how many more children there are.
const (
	maxUnphasedBytes = 32 << 10
	maxUnphasedEntry = 512
	// UnphasedMore is the key of the entry that counts the children left out.
	UnphasedMore = "…"
)

// boundUnphased is unphased cut to maxUnphasedBytes in child name order, each value to
// maxUnphasedEntry bytes.
func boundUnphased(unphased map[string]string) map[string]string {
	out, size := map[string]string{}, 0
	keys := slices.Sorted(maps.Keys(unphased))
	for i, k := range keys {
		v := unphased[k]
		if len(v) > maxUnphasedEntry {
			v = strings.ToValidUTF8(v[:maxUnphasedEntry], "") + "…"
		}
		if size += len(k) + len(v); size > maxUnphasedBytes {
			out[UnphasedMore] = fmt.Sprintf("%d more children not phased (see cmp-phase status -o json of a smaller fleet, or the sources named above)", len(keys)-i)
			break
		}
		out[k] = v
	}
	return out
}
