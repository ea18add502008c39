package cmpserver

import (
	"fmt"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// ParentIndex finds the rollout whose plan a parent renders (an optional part of a Store).
type ParentIndex interface {
	RolloutOf(parent string) (string, bool)
}

// specGone answers a render whose app directory has no ApplicationSet: with no rollout of
// this parent it is the load error; while the rollout deploys children it is refused (fail
// closed, naming the revision a person confirms with confirm-remove-rollout); once a person
// confirmed the removal and the agent removed every child, the render produces nothing.
func (s *Server) specGone(parent string, loadErr error) ([][]byte, error) {
	idx, ok := s.store.(ParentIndex)
	if !ok || parent == "" {
		return nil, loadErr
	}
	name, ok := idx.RolloutOf(parent)
	if !ok {
		return nil, loadErr
	}
	st, err := s.store.State(name)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, loadErr
	}
	if st.RemovedRevision != "" && len(st.Children) == 0 {
		return nil, nil // removed: nothing to render
	}
	if st.RemovedRevision != "" {
		return nil, fmt.Errorf("%s: rollout %s is being removed, %d children left (the agent removes them in deletionOrder; restore the spec to keep them)",
			contract.SpecRemovedMarker, name, len(st.Children))
	}
	return nil, fmt.Errorf("%s: the app directory has no ApplicationSet, but rollout %s deploys %d children at revision %s (fix: restore the spec, or confirm the removal with %s: %s in ConfigMap %s/%s, e.g. cmp-phase confirm-remove-rollout %s %s --reason ...; the agent then removes the children in deletionOrder)",
		contract.SpecRemovedMarker, name, len(st.Children), st.Deployed, contract.ConfirmRemoveRolloutKey, st.Deployed,
		s.opts.StateNamespace, contract.StateConfigMap(name), name, st.Deployed)
}
