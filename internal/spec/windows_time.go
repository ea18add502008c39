package spec

import (
	"time"
)

// ActiveAt reports whether the compiled window is active at t: a schedule's occurrence
// started at or before t and has not run its duration; start ≤ t < end; t on a blackout date
// in the window's time zone. Schedules run in the window's time zone, so across daylight
// saving changes they start at the wall-clock time the cron says (robfig/cron's rules: a
// time skipped by spring forward does not happen that day, a time repeated by fall back
// starts the window at both instants) and last their duration in real time.
func (w *Window) ActiveAt(t time.Time) bool {
	_, ok := w.occurrence(t)
	return ok
}

// occurrence is the start of the earliest occurrence active at t (ok false when none is).
func (w *Window) occurrence(t time.Time) (time.Time, bool) {
	switch {
	case w.sched != nil:
		s := w.sched.Next(t.Add(-w.dur).In(w.loc))
		return s, !s.IsZero() && !s.After(t)
	case len(w.blackout) > 0:
		day := midnight(t.In(w.loc))
		for _, d := range w.blackout {
			if d.Equal(day) {
				return d, true
			}
		}
		return time.Time{}, false
	case !w.start.IsZero():
		return w.start, !t.Before(w.start) && t.Before(w.end)
	}
	return time.Time{}, false
}

// NextChange is the first instant after t at which the window may become active or
// inactive (zero when it never changes again).
func (w *Window) NextChange(t time.Time) time.Time {
	var next time.Time
	earliest := func(c time.Time) {
		if c.After(t) && (next.IsZero() || c.Before(next)) {
			next = c
		}
	}
	switch {
	case w.sched != nil:
		earliest(w.sched.Next(t.In(w.loc)))
		if s, ok := w.occurrence(t); ok {
			earliest(s.Add(w.dur))
		}
	case len(w.blackout) > 0:
		for _, d := range w.blackout {
			earliest(d)
			earliest(d.AddDate(0, 0, 1)) // the next midnight in the zone, 23 or 25 h on DST days
		}
	case !w.start.IsZero():
		earliest(w.start)
		earliest(w.end)
	}
	return next
}

// midnight is the start of t's day in t's location.
func midnight(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}
