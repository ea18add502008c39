package plan

import (
	"encoding/json"
	"fmt"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// Schema is the plan document's schema. A plan without one is schema 1 (written before the
// field existed) and reads the same; a newer one is refused (fix: upgrade the agent).
const Schema = 2

// Plan is one revision of a rollout as the agent drives it. The tagged fields are the
// phases document (contract.PlanPhasesKey); the others come from the ConfigMap's metadata
// and its other keys.
type Plan struct {
	Schema  int          `json:"schema"`
	Dialect spec.Dialect `json:"dialect"`
	Phases  []spec.Phase `json:"phases"`
	// DeletionOrder is how children are removed: spec.DeletionReverse or
	// spec.DeletionAllAtOnce (spec.RemovalOrder of what the spec says).
	DeletionOrder string `json:"deletionOrder"`
	// LateJoiners is spec.LateJoinersDefer or spec.LateJoinersJoin.
	LateJoiners string `json:"lateJoiners,omitempty"`
	// ConfirmRemoval: no child is removed before a person confirms it.
	ConfirmRemoval bool `json:"confirmRemoval,omitempty"`
	// MaxFailures is the rollout-wide failure budget (spec.Budget); SizeAll, the zero
	// value: none.
	MaxFailures spec.Size `json:"maxFailures,omitzero"`
	// Windows are the rollout's allow and deny windows (compiled once decoded); each phase
	// has its own too.
	Windows []spec.Window `json:"windows,omitempty"`
	// OnFailure are the rollout's failure hooks (stop, rollback, rolled back); each phase
	// has its own in its onFailure.
	OnFailure spec.FailureHooks `json:"onFailure,omitzero"`
	// PostDeleteHooks run after children are gone (spec.Spec.PostDeleteHooks).
	PostDeleteHooks []spec.Hook `json:"postDeleteHooks,omitempty"`

	// Rollout, Namespace and Parent are the plan's rollout, the namespace of its
	// ConfigMaps and the parent Application that renders it.
	Rollout   string `json:"-"`
	Namespace string `json:"-"`
	Parent    string `json:"-"`
	// Revision is the id of Body, the spec's canonical JSON (stored in state so the
	// revision can be rendered again).
	Revision string          `json:"-"`
	Body     json.RawMessage `json:"-"`
	// Generation is the last render-relevant state generation the render saw (the
	// state-generation annotation): the agent confirms a re-render against it.
	Generation int64 `json:"-"`
	// Others are the other revisions the state kept when the plan was rendered (id → body).
	Others map[string]json.RawMessage `json:"-"`
	// Unphased are children following a moving ref the plugin cannot see (child →
	// repo@ref), bounded (Bound): each rollout warns about them.
	Unphased map[string]string `json:"-"`
	// LeftOut are children no phase selects and nothing deploys whose template cannot
	// render (child → why), bounded (Bound): left out of the render, not failing it; each
	// rollout warns about them.
	LeftOut map[string]string `json:"-"`
	// Children is how the render that wrote the plan renders children (nil: a plan from
	// before it said so).
	Children *ChildEnv `json:"-"`
}

// ChildEnv is what a render reads from the parent's environment to render children.
type ChildEnv struct {
	Namespace   string `json:"namespace"`
	SyncOptions string `json:"syncOptions"`
}

// New is the plan of a parsed spec at revision id, whose canonical JSON is body. The
// renderer fills in where it goes and what else the state kept.
func New(sp *spec.Spec, id string, body []byte) Plan {
	lj := spec.LateJoinersDefer
	if sp.LateJoiners == spec.LateJoinersJoin {
		lj = spec.LateJoinersJoin
	}
	p := Plan{Schema: Schema, Dialect: sp.Dialect, Phases: sp.Phases, DeletionOrder: spec.RemovalOrder(sp.DeletionOrder),
		LateJoiners: lj, ConfirmRemoval: sp.ConfirmRemoval, Windows: sp.Windows, OnFailure: sp.OnFailure, PostDeleteHooks: sp.PostDeleteHooks,
		Rollout: sp.Name, Revision: id, Body: body}
	if sp.MaxFailures.Kind != spec.SizeAll {
		p.MaxFailures = sp.MaxFailures
	}
	return p
}

// PhaseNames are the names of the plan's phases, in order: what a steering edit may name.
func (p *Plan) PhaseNames() []string {
	names := make([]string, len(p.Phases))
	for i, ph := range p.Phases {
		names[i] = ph.Name
	}
	return names
}

// UnmarshalJSON reads the phases document. A maxFailures present must be a budget (a
// count or a percentage): one the plan garbles is refused, never read as none.
func (p *Plan) UnmarshalJSON(b []byte) error {
	type fields Plan // without this method
	w := struct {
		*fields
		MaxFailures *spec.Size `json:"maxFailures"`
	}{fields: (*fields)(p)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p.MaxFailures = spec.Size{}
	if m := w.MaxFailures; m != nil {
		if m.Kind != spec.SizeCount && m.Kind != spec.SizePercent || m.Value < 0 {
			return fmt.Errorf("invalid maxFailures %+v (%s)", *m, rerender)
		}
		p.MaxFailures = *m
	}
	return nil
}
