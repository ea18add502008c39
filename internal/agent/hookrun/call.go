package hookrun

import (
	"fmt"
	"slices"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Vars are a hook's template variables: the phase's, and for a per-cluster run the cluster
// as the inventory has it — the one the engine named (a pre-hook's child may not exist
// yet), else the one the live child's label names (live: nil when there is none).
func Vars(name, namespace, phase string, act rollout.Action, live *v1alpha1.Application, inv *inventory.Inventory) map[string]string {
	vars := hooks.PhaseVars(name, namespace, phase)
	vars[".track.name"] = act.Track // the track whose phase runs it ("" before a split)
	if act.Cluster == "" {
		return vars
	}
	cluster := act.ClusterName
	if cluster == "" && live != nil {
		cluster = live.Labels[contract.LabelCluster]
	}
	if cluster == "" || inv == nil {
		return vars
	}
	for _, c := range inv.Clusters {
		if c.Name != cluster {
			continue
		}
		vars["name"], vars["server"], vars["project"] = c.Name, c.Server, c.Project
		for k, v := range c.Labels {
			vars["metadata.labels."+k] = v
		}
		for k, v := range c.Annotations {
			vars["metadata.annotations."+k] = v
		}
	}
	return vars
}

// Dest is what a per-cluster run of a kind that reads the child (hooks.ReadsChild: a job
// hook's) needs of its child: the AppProject and the destination namespace, as the
// rollout's revision renders the child; or why it cannot tell (Err).
type Dest struct {
	Project, Namespace string
	Err                error
}

// Target is where the run goes: the cluster the template variables name (the
// inventory's), the child's project and destination namespace.
func (d *Dest) Target(child string, vars map[string]string) (*hooks.Target, error) {
	if d.Err != nil {
		return nil, d.Err
	}
	if vars["name"] == "" || vars["server"] == "" {
		return nil, fmt.Errorf("the cluster of child %s is not in the inventory", child)
	}
	return &hooks.Target{Cluster: vars["name"], Server: vars["server"], Project: d.Project, Namespace: d.Namespace}, nil
}

// Started is when the ledger started act's run (zero when it has no entry).
func Started(st *state.State, act rollout.Action) time.Time {
	if act.Phase == rollout.NoPhase {
		return st.AfterDelete[act.Key].StartedAt
	}
	r := st.Rollout
	if r == nil || act.Phase < 0 || act.Phase >= len(r.Phases) {
		return time.Time{}
	}
	return r.Phases[act.Phase].Hooks[act.Key].StartedAt
}

// InPlan is act with its phase index in the plan the agent read (the engine's index is
// the state's, where a split rollout has one copy of a phase per track).
func InPlan(phases []spec.Phase, r *state.Rollout, act rollout.Action) rollout.Action {
	if act.Phase < 0 || act.Phase >= len(r.Phases) {
		return act
	}
	name := r.Phases[act.Phase].Name
	if i := slices.IndexFunc(phases, func(p spec.Phase) bool { return p.Name == name }); i >= 0 {
		act.Phase = i
	}
	return act
}
