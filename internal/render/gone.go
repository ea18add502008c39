package render

import (
	"fmt"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// SpecGone decides the render of a parent whose app directory has no ApplicationSet any
// more, given its rollout's state (ns: where the state ConfigMap is): refused while the
// rollout deploys children (naming the revision a person confirms with
// confirm-remove-rollout) or while their removal runs; nothing at all once a person
// confirmed it and every child is gone. A rollout with no state is loadErr.
func SpecGone(rollout, ns string, st *state.State, loadErr error) ([][]byte, error) {
	switch {
	case st == nil:
		return nil, loadErr
	case st.RemovedRevision != "" && len(st.Children) == 0:
		return nil, nil // removed: nothing to render
	case st.RemovedRevision != "":
		return nil, fmt.Errorf("%s: rollout %s is being removed, %d children left (the agent removes them in deletionOrder; restore the spec to keep them)",
			contract.SpecRemovedMarker, rollout, len(st.Children))
	}
	return nil, fmt.Errorf("%s: the app directory has no ApplicationSet, but rollout %s deploys %d children at revision %s (fix: restore the spec, or confirm the removal with %s: %s in ConfigMap %s/%s, e.g. cmp-phase confirm-remove-rollout %s %s --reason ...; the agent then removes the children in deletionOrder)",
		contract.SpecRemovedMarker, rollout, len(st.Children), st.Deployed, contract.ConfirmRemoveRolloutKey, st.Deployed,
		ns, contract.StateConfigMap(rollout), rollout, st.Deployed)
}
