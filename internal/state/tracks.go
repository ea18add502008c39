package state

import (
	"fmt"
	"slices"
	"time"
)

// Track is one track of a rollout split by a phase's tracks key: its own place in the
// phases after the split (the phases whose Track is its Name) and its own status. The
// phases before the split are shared and walked by Rollout.Phase, which stays at the
// split while the tracks walk.
type Track struct {
	Name string `json:"name"`
	// Phase is the index in Rollout.Phases of the track's current phase (one past its last
	// once it completed).
	Phase  int           `json:"phase"`
	Status RolloutStatus `json:"status"`
	Reason string        `json:"reason,omitempty"`
	// EndedAt is when the track reached a terminal status (zero while it walks).
	EndedAt time.Time `json:"endedAt,omitzero"`
	// Window is the change window holding the track now (nil when none does): each track
	// keeps its own, so two tracks held at different phases cost no write per pass.
	Window *WindowHold `json:"window,omitempty"`
}

// Span is where the phases of track name lie in r.Phases: [from, to); from == to when the
// rollout has no such track. A track's phases are contiguous, in the plan's order.
func (r *Rollout) Span(name string) (from, to int) {
	from = slices.IndexFunc(r.Phases, func(p PhaseState) bool { return p.Track == name })
	if from < 0 || name == "" {
		return 0, 0
	}
	to = from
	for to < len(r.Phases) && r.Phases[to].Track == name {
		to++
	}
	return from, to
}

// Current are the indexes of the phases the rollout is at: its phase, or with tracks, each
// walking track's (none once over).
func (r *Rollout) Current() []int {
	if r == nil {
		return nil
	}
	if len(r.Tracks) == 0 || r.Phase < r.Split() {
		if r.Phase < len(r.Phases) {
			return []int{r.Phase}
		}
		return nil
	}
	var out []int
	for _, t := range r.Tracks {
		if from, to := r.Span(t.Name); t.Phase >= from && t.Phase < to {
			out = append(out, t.Phase)
		}
	}
	return out
}

// Split is the index of the first phase walked per track (len(Phases) without tracks).
func (r *Rollout) Split() int {
	if i := slices.IndexFunc(r.Phases, func(p PhaseState) bool { return p.Track != "" }); i >= 0 {
		return i
	}
	return len(r.Phases)
}

// validTracks checks what the engine relies on: every track has its phases, after the
// shared ones, and its place is one of them or one past its last.
func (r *Rollout) validTracks() error {
	for _, t := range r.Tracks {
		from, to := r.Span(t.Name)
		switch {
		case from == to:
			return fmt.Errorf("track %q has no phases (fix: let the agent rebuild the state)", t.Name)
		case countTrack(r.Phases, t.Name) != to-from:
			return fmt.Errorf("track %q has phases apart (fix: let the agent rebuild the state)", t.Name)
		case from < r.Split() || t.Phase < from || t.Phase > to:
			return fmt.Errorf("track %q phase %d out of range (fix: let the agent rebuild the state)", t.Name, t.Phase)
		}
	}
	return nil
}

func countTrack(phases []PhaseState, name string) int {
	n := 0
	for _, p := range phases {
		if p.Track == name {
			n++
		}
	}
	return n
}
