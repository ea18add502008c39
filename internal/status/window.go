package status

import (
	"fmt"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Window is a change window holding the rollout (`window` in -o json).
type Window struct {
	Phase   string   `json:"phase"`
	Windows []string `json:"windows"`
	// Hold is "all" when the phase waits entirely, "admissions" when only admissions wait.
	Hold string `json:"hold"`
	// Children are those an AppProject's sync windows hold back (none: the whole phase).
	Children []string  `json:"children,omitempty"`
	Since    time.Time `json:"since"`
	// NextOpening is when the windows next allow changes (absent: none known within 400 days or 2000 window changes).
	NextOpening *time.Time `json:"nextOpening,omitempty"`
}

// window is the hold of a running rollout (nil when none holds it).
func window(r *state.Rollout) *Window {
	h := r.Window
	if h == nil || r.Status != state.RolloutProgressing {
		return nil
	}
	w := &Window{Phase: h.Phase, Windows: h.Windows, Hold: h.Hold, Children: h.Children, Since: h.Since, NextOpening: h.Opens}
	if w.Hold == "" {
		w.Hold = "admissions"
	}
	return w
}

// windowText says what holds the rollout and when it opens, one line.
func windowText(w *Window) string {
	what := "admissions held"
	if w.Hold == "all" {
		what = "waits entirely (hold: all)"
	}
	s := fmt.Sprintf("phase %s %s by window %s since %s", w.Phase, what, strings.Join(w.Windows, ", "), w.Since.UTC().Format(time.RFC3339))
	if len(w.Children) > 0 {
		s += fmt.Sprintf(" (AppProject sync windows hold %s)", strings.Join(w.Children, ", "))
	}
	if w.NextOpening == nil {
		return s + "; no opening known (override-window lets one admission through)"
	}
	return s + "; next opening " + w.NextOpening.UTC().Format(time.RFC3339)
}
