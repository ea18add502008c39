package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// unselected renders, for a spec with RollingSync or RollingUpdate steps, the children no
// step selects that the state does not deploy: at the new revision, with automated sync
// off and AnnotationUnselected saying why (seed 003: they are "excluded from the rolling
// sync and must be synced manually"). No rollout admits, moves or removes them; a step that
// selects one later makes it a member of that rollout. A phaseDeployment spec's clusters
// no phase targets get nothing, as before. Such a child whose template cannot render (seed
// 000's coexistence example with the unlabelled in-cluster: env is "{{metadata.labels.env}}")
// is left out, with the reason (leftOut), instead of failing every cluster's render: it was
// never deployed and nothing deploys it. A deployed child still fails the render.
func (r *Renderer) unselected(in Input, body []byte, id string, deployed func(string) bool) (rendered map[string][]byte, keys []string, leftOut map[string]string, err error) {
	if !slices.ContainsFunc(in.Spec.Phases, func(p spec.Phase) bool { return p.MatchAppLabels }) {
		return nil, nil, nil, nil
	}
	subjects, err := r.Subjects(in.ctx(), in.Spec.Name, id, body, in.Inventory)
	if err != nil {
		return nil, nil, nil, err
	}
	var children []assigned
	for _, s := range subjects {
		if s.Absent || deployed(s.Key) || !in.Env.Shard.Owns(s.Key) || selected(in.Spec.Phases, s) {
			continue
		}
		children = append(children, assigned{key: s.Key, rev: id})
	}
	if len(children) == 0 {
		return nil, nil, nil, nil
	}
	if rendered, leftOut, err = r.renderEach(in, id, body, children); err != nil {
		return nil, nil, nil, err
	}
	for _, c := range children {
		if _, ok := rendered[c.key]; !ok {
			continue
		}
		keys = append(keys, c.key)
		if rendered[c.key], err = manual(rendered[c.key]); err != nil {
			return nil, nil, nil, fmt.Errorf("render %s: %w", c.key, err)
		}
	}
	return rendered, keys, leftOut, nil
}

// renderEach renders children at revision id together and, when one child's own render
// fails (childError), each alone: a child whose own render fails is left out with the
// reason (one render per child, so a fleet of failing children costs a render each, not a
// render per failure). Any other failure — the revision's, the total output cap, a deadline
// or a cancel — fails the render whole.
func (r *Renderer) renderEach(in Input, id string, body []byte, children []assigned) (map[string][]byte, map[string]string, error) {
	rendered := make(map[string][]byte, len(children))
	err := r.renderRevision(rendered, in, id, body, children)
	if err == nil || !isChildError(in, err) {
		return rendered, nil, err
	}
	rendered, leftOut, total := make(map[string][]byte, len(children)), map[string]string{}, 0
	for _, c := range children {
		err := r.renderRevision(rendered, in, id, body, []assigned{c})
		switch {
		case err == nil:
			total += len(rendered[c.key])
			if err := sized(c.key, 0, total); err != nil {
				return nil, nil, err
			}
		case isChildError(in, err) && in.State != nil && slices.Contains(in.State.Unselected, c.key):
			return nil, nil, fmt.Errorf("%w (fix: correct the template: the child exists, so it cannot be left out)", err)
		case isChildError(in, err):
			delete(rendered, c.key)
			leftOut[c.key] = err.Error()
		default:
			return nil, nil, err
		}
	}
	return rendered, leftOut, nil
}

// isChildError reports whether err is one child's own render failure, and the render
// still runs (not past its deadline, not cancelled).
func isChildError(in Input, err error) bool {
	var ce childError
	return in.ctx().Err() == nil && errors.As(err, &ce)
}

// selected reports whether any phase (step) of the spec selects s.
func selected(phases []spec.Phase, s targets.Child) bool {
	for _, ph := range phases {
		if len(ph.Targets) == 0 {
			return true
		}
		for i := range ph.Targets {
			if ok, err := ph.Targets[i].Matches(s.Subject, ph.MatchAppLabels); err != nil || ok {
				return true // an error selects: never render a child unsynced by doubt
			}
		}
	}
	return false
}

// manual is a rendered child with automated sync off, saying why.
func manual(doc []byte) ([]byte, error) {
	var app map[string]any
	if err := json.Unmarshal(doc, &app); err != nil {
		return nil, err
	}
	if sp, ok := app["spec"].(map[string]any); ok {
		if pol, ok := sp["syncPolicy"].(map[string]any); ok {
			delete(pol, "automated")
		}
	}
	meta, _ := app["metadata"].(map[string]any)
	if meta == nil {
		return nil, fmt.Errorf("the rendered Application has no metadata")
	}
	ann, _ := meta["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
		meta["annotations"] = ann
	}
	ann[contract.AnnotationUnselected] = contract.UnselectedReason
	return json.Marshal(app)
}
