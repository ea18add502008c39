package status

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Parent is the rollout's state as the annotations of its parent Application carry it
// (contract.Parent*): every key, "" for one that says nothing now. It reads the outline
// and the current phase only: cheap at any fleet size.
func Parent(rollout string, st *state.State) map[string]string {
	d := Outline(rollout, st)
	out := map[string]string{}
	for _, k := range contract.ParentAnnotationKeys {
		out[k] = ""
	}
	out[contract.ParentStatus], out[contract.ParentRollout] = d.Status, rollout
	if d.Revision == "" {
		return out
	}
	out[contract.ParentRolloutRevision] = d.Revision
	out[contract.ParentRolloutID] = d.Revision + "@" + d.StartedAt.UTC().Format(time.RFC3339)
	out[contract.ParentPhase] = d.Phase
	for _, p := range d.Phases {
		if p.Status == string(state.PhaseSucceeded) && p.Track == "" {
			out[contract.ParentPhaseSucceeded] = p.Name
		}
	}
	if r := st.Rollout; r.Phase < len(r.Phases) {
		p, ph := d.Phases[r.Phase], r.Phases[r.Phase]
		out[contract.ParentAdmitted] = fmt.Sprintf("%d/%d", p.Admitted, p.Members)
		if r.Status == state.RolloutProgressing {
			out[contract.ParentWaitingFor] = waitsFor(d, p, ph)
			if d.Paused != nil {
				out[contract.ParentPaused] = d.Paused.Since.UTC().Format(time.RFC3339)
			}
		}
		out[contract.ParentCheckFailed] = failedCheck(ph)
	}
	return out
}

// failedCheck names the first (by ledger key) check of ph whose run failed or errored:
// "error-rate", or "error-rate on prod-2" for a per-cluster one; "" when none did.
func failedCheck(ph state.PhaseState) string {
	for _, key := range slices.Sorted(maps.Keys(ph.Hooks)) {
		run := ph.Hooks[key]
		if run.Kind != kindCheck || (run.Status != state.HookFailed && run.Status != state.HookErrored) {
			continue
		}
		if run.Cluster != "" {
			return run.Name + " on " + run.Cluster
		}
		return run.Name
	}
	return ""
}

// kindCheck is a check's kind in the hook ledger (rollout.KindCheck).
const kindCheck = "check"

// waitsFor is what a progressing rollout at phase p waits for, most pressing first.
func waitsFor(d Doc, p Phase, ph state.PhaseState) string {
	switch {
	case d.Paused != nil:
		return "person"
	case d.Window != nil:
		return "window"
	case p.Approval != nil && p.Approval.Still > 0 && p.Approval.Rejection == nil:
		return "approval"
	case p.Status == string(state.PhaseSoaking):
		return "soak"
	case p.Admitted < p.Members || anyCluster(ph, state.ClusterWaiting):
		return "sync"
	case anyHook(ph, state.HookRunning):
		return "check"
	case anyHook(ph, state.HookInconclusive):
		return "person"
	}
	return ""
}

func anyCluster(ph state.PhaseState, status state.ClusterStatus) bool {
	for _, c := range ph.Clusters {
		if c.Status == status {
			return true
		}
	}
	return false
}

func anyHook(ph state.PhaseState, status state.HookStatus) bool {
	for _, h := range ph.Hooks {
		if h.Status == status {
			return true
		}
	}
	return false
}
