package rollout

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Track events: a track's own transitions, named after the rollout's (the message names
// the track).
const (
	EvTrackCompleted   = "TrackCompleted"
	EvTrackStopped     = "TrackStopped"
	EvTrackRollingBack = "TrackRollingBack"
	EvTrackRolledBack  = "TrackRolledBack"
)

// trackEvents renames the rollout's events a track's walk emits: they end the track, not
// the rollout.
var trackEvents = map[string]string{EvRolloutStopped: EvTrackStopped, EvRolloutAborted: EvTrackStopped, EvRollingBack: EvTrackRollingBack, EvRolledBack: EvTrackRolledBack, EvRolloutCompleted: EvTrackCompleted}

func init() {
	warnings[EvTrackStopped], warnings[EvTrackRollingBack] = true, true
}

// sharedView marks, in a track's view of the rollout (trackView), the copies of the
// shared phases: read for cumulative admission and the failure budget, never returned by
// the track's rollback.
const sharedView = "\x00shared"

// splitTracks splits r's phases from the plan's first phase with tracks on into one copy
// per track, each with the members whose tracks key gives that track (in the snapshot's
// order), and records the tracks, sorted. Nothing splits when that phase and the ones
// after it have no members.
func splitTracks(r *state.Rollout, p plan.Plan, taking []targets.Child) error {
	k := spec.TrackSplit(p.Phases)
	if k < 0 {
		return nil
	}
	of := make(map[string]string, len(taking))
	for _, s := range taking {
		t, err := p.Phases[k].Tracks.Of(s.Subject)
		if err != nil {
			return fmt.Errorf("phase %s: %w", p.Phases[k].Name, err)
		}
		of[s.Key] = t
	}
	var names []string
	for _, ph := range r.Phases[k:] {
		for _, m := range ph.Members {
			names = append(names, of[m])
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return nil // nobody to split: the phases stay shared
	}
	phases := r.Phases[:k:k]
	for _, name := range names {
		r.Tracks = append(r.Tracks, state.Track{Name: name, Phase: len(phases), Status: StatusProgressing})
		for _, ph := range r.Phases[k:] {
			ph.Track = name
			ph.Members = slices.DeleteFunc(slices.Clone(ph.Members), func(c string) bool { return of[c] != name })
			phases = append(phases, ph)
		}
	}
	r.Phases = phases
	return nil
}

// withTracks lines the plan's phases up with a split rollout's (each track's copy of a
// phase has the phase's spec), so that index i of both is the same phase everywhere. A
// plan of another revision, or one that lacks a phase the state names, is left as it is.
func withTracks(r *state.Rollout, p plan.Plan) plan.Plan {
	if !r.Active() || r.Revision != p.Revision || len(r.Tracks) == 0 {
		return p
	}
	if distinctNames(r.Phases) != len(p.Phases) {
		return p // a phase added or removed: not lined up (replan)
	}
	phases := make([]spec.Phase, 0, len(r.Phases))
	for _, ph := range r.Phases {
		i := slices.IndexFunc(p.Phases, func(sp spec.Phase) bool { return sp.Name == ph.Name })
		if i < 0 {
			return p
		}
		phases = append(phases, p.Phases[i])
	}
	p.Phases = phases
	return p
}

// walkTracks walks every track still going, each on its own (walkTrack), and reports
// whether every track completed; once all have ended and one did not complete, the rollout
// is Stopped: its revision is not the deployed one, the completed tracks keep it, and a
// person decides (a new commit, or rollback for every track).
func (ps *pass) walkTracks() bool {
	st := ps.st
	r := st.Rollout
	for i := range r.Tracks {
		if st.Paused != nil {
			break // the engine paused the rollout (an Inconclusive check): every track waits
		}
		t := &r.Tracks[i]
		prevHold := t.Window
		t.Window = nil // set again by the walk while a window holds the track
		if !t.Status.IsTerminal() {
			ps.walkTrack(prevHold, t)
		}
	}
	r.Window = tracksHold(r)
	if st.Paused != nil {
		return false
	}
	var ended []string
	for _, t := range r.Tracks {
		switch {
		case !t.Status.IsTerminal():
			return false
		case t.Status != StatusCompleted:
			ended = append(ended, fmt.Sprintf("%s %s (%s)", t.Name, t.Status, t.Reason))
		}
	}
	if len(ended) == 0 {
		r.Phase = len(r.Phases)
		return true
	}
	r.Status = StatusStopped
	r.Reason = fmt.Sprintf("not every track completed: %s; the completed tracks keep revision %s (fix: repair and commit a new revision, or write rollback to return every track)",
		strings.Join(ended, "; "), r.Revision)
	ps.emit(r, EvRolloutStopped, "rollout stopped: "+r.Reason)
	return false
}

// tracksHold is the hold status shows for the whole rollout: the first held track's (each
// track keeps its own in Track.Window), or the shared phases' when no track is held.
func tracksHold(r *state.Rollout) *state.WindowHold {
	for _, t := range r.Tracks {
		if t.Window != nil {
			return t.Window.Clone()
		}
	}
	return r.Window
}

// walkTrack moves track t as far as it goes on this pass: the engine's own walk (or
// rollback) over the track's view of the rollout (inTrack).
func (ps *pass) walkTrack(prevHold *state.WindowHold, t *state.Track) {
	o := ps.o
	o.Hooks = o.TrackHooks[t.Name]
	ps.inTrack(t, o, func(q *pass) {
		v := q.st.Rollout
		if v.Status == StatusRollingBack {
			q.rollBack()
		} else if q.walk(prevHold, len(v.Phases)) {
			v.Status, v.Reason = StatusCompleted, ""
			q.emit(v, EvTrackCompleted, "every phase of the track succeeded")
		}
	})
}

// inTrack runs do on a pass whose st.Rollout is the view of track t (trackView), whose plan
// is lined up with it and whose observations are o, then writes the outcome back to t
// (fromView).
func (ps *pass) inTrack(t *state.Track, o Observed, do func(q *pass)) {
	st, p := ps.st, ps.p
	r := st.Rollout
	k := r.Split()
	from, to := r.Span(t.Name)
	v := trackView(r, t, k, from, to)
	vp := p
	vp.Phases = append(slices.Clone(p.Phases[:k]), p.Phases[from:to]...)
	q := *ps
	q.p, q.o, q.acts = vp, o, nil
	st.Rollout = v
	do(&q)
	st.Rollout = r
	ps.problems = q.problems
	ps.fromView(t, v, k, from, q.acts)
}

// trackView is the rollout as track t's walk sees it: the shared phases (copies, marked
// sharedView), then t's, its place, status and window hold, no history, and what is left of the
// rollout-wide failure budget once the other tracks' failures are counted.
func trackView(r *state.Rollout, t *state.Track, k, from, to int) *state.Rollout {
	v := *r
	v.Phases = make([]state.PhaseState, 0, k+to-from)
	for _, ph := range r.Phases[:k] {
		ph.Track = sharedView
		v.Phases = append(v.Phases, ph)
	}
	v.Phases = append(v.Phases, r.Phases[from:to]...)
	v.Phase, v.Status, v.Reason, v.History, v.Tracks, v.Window = k+t.Phase-from, t.Status, t.Reason, nil, nil, t.Window
	if r.MaxFailures != nil {
		left := *r.MaxFailures - (len(r.Failures()) - len(v.Failures()))
		v.MaxFailures = &left
	}
	return &v
}

// fromView writes a track's walk back: its phases, place and status, its history entries
// and events named after the track, its hook runs at their index in the rollout.
func (ps *pass) fromView(t *state.Track, v *state.Rollout, k, from int, mine []Action) {
	r := ps.st.Rollout
	copy(r.Phases[from:], v.Phases[k:])
	t.Phase, t.Reason = from+v.Phase-k, v.Reason
	if t.Status != v.Status && v.Status.IsTerminal() {
		t.EndedAt = ps.now
	}
	t.Status = v.Status
	t.Window = v.Window
	for _, e := range v.History {
		r.Record(e.At, trackEvent(e.Event), "track "+t.Name+": "+e.Message)
	}
	for _, a := range mine {
		switch a.Kind {
		case ActEvent:
			a.Reason, a.Message = trackEvent(a.Reason), "track "+t.Name+": "+a.Message
			a.Warning = warnings[a.Reason]
		case ActRunHook:
			a.Phase, a.Track = from+a.Phase-k, t.Name
		}
		ps.add(a)
	}
}

func trackEvent(event string) string {
	if e, ok := trackEvents[event]; ok {
		return e
	}
	return event
}

// followRollout ends the tracks still walking once the whole rollout left Progressing by
// a rollout-wide edit or event (abort, rollback, a newer revision): each takes the
// rollout's status, so status never shows a track walking a rollout that does not. A
// rollout-wide rollback returns every track, an ended one too (a completed track's
// children return as well), so every track follows it.
func followRollout(r *state.Rollout, now time.Time) {
	if r == nil || r.Status == StatusProgressing || r.Status == StatusCompleted {
		return
	}
	back := r.Status == StatusRollingBack || r.Status == StatusRolledBack
	for i := range r.Tracks {
		t := &r.Tracks[i]
		if t.Status == r.Status || t.Status == StatusRolledBack || (t.Status.IsTerminal() && !back) {
			continue
		}
		t.Status, t.Reason = r.Status, "the rollout is "+string(r.Status)
		if t.Status.IsTerminal() {
			t.EndedAt = now
		}
	}
}

// distinctNames is how many phases phases are copies of (a split rollout has one per track).
func distinctNames(phases []state.PhaseState) int {
	seen := map[string]bool{}
	for _, ph := range phases {
		seen[ph.Name] = true
	}
	return len(seen)
}
