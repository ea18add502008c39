package state

import (
	"slices"
	"time"
)

// WindowHold is a change window holding a rollout: which windows hold which phase, since
// when, until when (the next opening; nil when none is known) and whether the phase waits
// entirely (hold: all). Children lists the children an AppProject's sync windows hold
// back (the other windows hold the whole phase).
type WindowHold struct {
	Phase    string     `json:"phase"`
	Windows  []string   `json:"windows"`
	Hold     string     `json:"hold,omitempty"`
	Children []string   `json:"children,omitempty"`
	Since    time.Time  `json:"since"`
	Opens    *time.Time `json:"opens,omitempty"`
}

// Clone copies a hold.
func (h *WindowHold) Clone() *WindowHold {
	if h == nil {
		return nil
	}
	out := *h
	out.Windows, out.Children = slices.Clone(h.Windows), slices.Clone(h.Children)
	out.Opens = clonePtr(h.Opens)
	return &out
}
