package plan

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/jsoncost"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// rerender is the fix of a plan the agent cannot read.
const rerender = "fix: let the parent re-render it"

// Manifest is what Decode reads of the plan ConfigMap: its name, namespace, labels,
// annotations and data. Plain maps, so that reading a plan needs no Kubernetes API types:
// the caller copies them from the ConfigMap it holds.
type Manifest struct {
	Namespace, Name     string
	Labels, Annotations map[string]string
	Data                map[string]string
}

// Decode reads a plan ConfigMap back, compiling its expressions through exprs (nil:
// compile each time). A plan of schema 1 (before the field) reads as it always did.
func Decode(cm Manifest, exprs *targets.Cache) (*Plan, error) {
	where := cm.Namespace + "/" + cm.Name
	for key, doc := range cm.Data {
		check := jsoncost.Check
		if key == contract.PlanRevisionsKey { // id → body, each kept raw: the render weighs a body before decoding it
			check = func(b []byte, limit int64) error { return jsoncost.CheckRaw(b, "", limit) }
		}
		if err := check([]byte(doc), jsoncost.Limit); err != nil {
			return nil, fmt.Errorf("plan %s key %s: %w (%s)", where, key, err, rerender)
		}
	}
	p := &Plan{Rollout: cm.Labels[contract.LabelRollout], Parent: cm.Annotations[contract.AnnotationParent], Namespace: cm.Namespace,
		Revision: cm.Data[contract.PlanRevisionKey], Body: json.RawMessage(cm.Data[contract.PlanSpecKey])}
	if g, err := strconv.ParseInt(cm.Annotations[contract.AnnotationGeneration], 10, 64); err == nil && g > 0 {
		p.Generation = g // else 0: a render that saw no state
	}
	if err := p.identity(); err != nil {
		return nil, fmt.Errorf("plan %s %w", where, err)
	}
	if err := json.Unmarshal([]byte(cm.Data[contract.PlanPhasesKey]), p); err != nil {
		return nil, fmt.Errorf("plan %s %s: %w (%s)", where, contract.PlanPhasesKey, err, rerender)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("plan %s %w", where, err)
	}
	if err := p.compile(exprs); err != nil {
		return nil, fmt.Errorf("plan %s %w", where, err)
	}
	if err := p.besides(cm.Data); err != nil {
		return nil, fmt.Errorf("plan %s %w", where, err)
	}
	return p, nil
}

// identity refuses a plan without a rollout, a revision or a spec, or whose spec is not
// its revision.
func (p *Plan) identity() error {
	if p.Rollout == "" || p.Revision == "" || len(p.Body) == 0 {
		return fmt.Errorf("is incomplete (%s)", rerender)
	}
	if id, err := spec.IDOf(p.Body); err != nil || id != p.Revision {
		return fmt.Errorf("revision %s does not match its spec (%s)", p.Revision, rerender)
	}
	return nil
}

// check refuses a newer plan or an invalid rule, and normalises what schema 1 left to the
// reader.
func (p *Plan) check() error {
	if p.Schema == 0 {
		p.Schema = 1
	}
	if p.Schema > Schema {
		return fmt.Errorf("schema %d is newer than this agent's %d (fix: upgrade the agent to the sidecar's version)", p.Schema, Schema)
	}
	if p.DeletionOrder = spec.RemovalOrder(p.DeletionOrder); p.DeletionOrder != spec.DeletionReverse && p.DeletionOrder != spec.DeletionAllAtOnce {
		return fmt.Errorf("unknown deletionOrder %q (%s)", p.DeletionOrder, rerender)
	}
	if p.LateJoiners != spec.LateJoinersJoin {
		p.LateJoiners = spec.LateJoinersDefer
	}
	return nil
}

// compile compiles the phases' and the rollout's expressions and windows.
func (p *Plan) compile(exprs *targets.Cache) error {
	for i := range p.Phases {
		if err := p.Phases[i].Compile(exprs); err != nil {
			return fmt.Errorf("phase %s: %w (%s)", p.Phases[i].Name, err, rerender)
		}
	}
	if err := spec.CompileWindows(p.Windows); err != nil {
		return fmt.Errorf("windows: %w (%s)", err, rerender)
	}
	return nil
}

// besides reads the keys beside the phases document.
func (p *Plan) besides(data map[string]string) error {
	for key, into := range map[string]any{contract.PlanRevisionsKey: &p.Others, contract.PlanUnphasedKey: &p.Unphased, contract.PlanLeftOutKey: &p.LeftOut, contract.PlanChildrenKey: &p.Children} {
		if b := data[key]; b != "" {
			if err := json.Unmarshal([]byte(b), into); err != nil {
				return fmt.Errorf("%s: %w (%s)", key, err, rerender)
			}
		}
	}
	return nil
}
