package status

import (
	"fmt"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Track is one track of a rollout split by a phase's tracks (`tracks` in -o json): where
// it is and how it stands.
type Track struct {
	Name   string `json:"name"`
	Phase  string `json:"phase,omitempty"` // its current phase; absent once it ended
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// EndedAt is when the track completed, stopped or rolled back.
	EndedAt time.Time `json:"endedAt,omitzero"`
}

// tracksOf are the rollout's tracks (none without a split).
func tracksOf(r *state.Rollout) []Track {
	var out []Track
	for _, t := range r.Tracks {
		tr := Track{Name: t.Name, Status: string(t.Status), Reason: t.Reason, EndedAt: t.EndedAt}
		if !t.Status.IsTerminal() && t.Phase < len(r.Phases) {
			tr.Phase = r.Phases[t.Phase].Name
		}
		out = append(out, tr)
	}
	return out
}

// trackText is a track's line: "eu at prod: Progressing", "us: RolledBack: why".
func trackText(t Track) string {
	s := t.Name
	if t.Phase != "" {
		s += " at " + t.Phase
	}
	s += ": " + t.Status
	if t.Reason != "" {
		s += ": " + t.Reason
	}
	return s
}

// tracksText writes one line per track, for Text.
func tracksText(b *strings.Builder, d Doc) {
	for _, t := range d.Tracks {
		fmt.Fprintf(b, "track %s\n", trackText(t))
	}
}

// phaseLabel names a phase in a table or text: with its track when it is a track's copy.
func phaseLabel(p Phase) string {
	if p.Track != "" {
		return p.Name + "@" + p.Track
	}
	return p.Name
}
