package cmpserver

import (
	"github.com/cmp-phase/cmp-phase/internal/render"
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
	return render.SpecGone(name, s.opts.StateNamespace, st, loadErr)
}
