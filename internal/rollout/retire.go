package rollout

import (
	"fmt"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
)

// EvRolloutRemovalConfirmed and EvRolloutRemovalCancelled report a person's removal of a
// rollout whose spec is gone from git, and its end when the spec came back first.
const (
	EvRolloutRemovalConfirmed = "RolloutRemovalConfirmed"
	EvRolloutRemovalCancelled = "RolloutRemovalCancelled"
)

// removeRollout applies a confirm-remove-rollout edit: it records the removal of the
// deployed revision's rollout (st.RemovedRevision) when the spec is gone from git (the
// parent's render says so) and the edit names that revision; otherwise it is refused and
// removed, unlike other refused edits: a confirmation must follow the removal it confirms,
// never wait in the ConfigMap for a spec to disappear later.
func (ps *pass) removeRollout(c *control.Controls) {
	st, specGone := ps.st, ps.o.SpecGone
	v := c.ConfirmRemoveRollout
	switch {
	case v == "":
		return
	case st.RemovedRevision != "" && v == st.RemovedRevision:
		ps.consume(contract.ConfirmRemoveRolloutKey) // recorded already
	case !specGone:
		ps.reject(contract.ConfirmRemoveRolloutKey, v, "the parent renders the spec: it is not gone from git (fix: delete the spec in git first, or delete the parent with the resources finalizer)")
		ps.consume(contract.ConfirmRemoveRolloutKey)
	case v != st.Deployed:
		ps.reject(contract.ConfirmRemoveRolloutKey, v, "the rollout deploys revision %s (fix: write that revision, as the parent's ComparisonError names it)", st.Deployed)
		ps.consume(contract.ConfirmRemoveRolloutKey)
	default:
		st.RemovedRevision = v
		ps.consume(contract.ConfirmRemoveRolloutKey)
		ps.emit(st.Rollout, EvRolloutRemovalConfirmed, fmt.Sprintf("removal of the rollout (revision %s, spec gone from git) confirmed by %s: every child is removed", v, who(c)))
	}
}

// removed reports whether a recorded removal holds the engine: until every child is gone
// (the agent deletes them in the deletion order, then records TornDown) and afterwards,
// while the plan is the one from before the removal. A running rollout is abandoned where
// it stands. Once a render of the spec after the removal arrives (the spec is back in git),
// or the spec comes back while children are still there, the removal ends and the rollout
// goes on from what is deployed.
func (ps *pass) removed() bool {
	st, o := ps.st, ps.o
	if st.RemovedRevision == "" {
		return false
	}
	back := o.SpecBack && (len(st.Children) > 0 || o.PlanFresh)
	if back {
		st.RemovedRevision = ""
		ps.emit(st.Rollout, EvRolloutRemovalCancelled, "the spec is back in git: the rollout goes on")
		return false
	}
	if r := st.Rollout; r.Active() {
		pinAdmitted(st, r)
		r.Reason = "the rollout is being removed"
	}
	return true
}
