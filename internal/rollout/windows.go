package rollout

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Window events.
const (
	// EvWindowHeld: a window holds the rollout's admissions (or the whole phase).
	EvWindowHeld = "WindowHeld"
	// EvWindowOverridden: a person let one admission through a window (override-window).
	EvWindowOverridden = "WindowOverridden"
)

// openingHorizon and openingSteps bound the search for the next opening: a set of windows
// closed for longer, or changing more often before it opens (an always-active cron window
// changes every minute), has no known opening. The bounds keep one search well under a
// millisecond; a pass searches each distinct window set once (openings).
const (
	openingHorizon = 400 * 24 * time.Hour
	openingSteps   = 2000
)

// Blockers are the compiled windows that hold changes at t: every active deny window
// (blackout dates included) and, when there are allow windows and none is active, every
// allow window. A window named by override is ignored (a deny window) or counts as active
// (an allow window). No blockers: changes are allowed.
func Blockers(ws []spec.Window, t time.Time, override string) []spec.Window {
	var deny, allow []spec.Window
	open := false
	for _, w := range ws {
		switch {
		case w.Kind == spec.WindowAllow:
			allow = append(allow, w)
			open = open || w.Name == override || w.ActiveAt(t)
		case w.Name != override && w.ActiveAt(t):
			deny = append(deny, w)
		}
	}
	if len(allow) > 0 && !open {
		deny = append(deny, allow...)
	}
	return deny
}

// NextOpening is the first instant at or after now at which ws allow changes (no
// blockers), found by walking the windows' changes; zero when none is known: none within
// openingHorizon or openingSteps changes. Pure: time is passed in.
func NextOpening(ws []spec.Window, now time.Time) time.Time {
	at, _ := nextOpening(ws, now)
	return at
}

// nextOpening is NextOpening and how many changes it walked.
func nextOpening(ws []spec.Window, now time.Time) (time.Time, int) {
	t := now
	for step := range openingSteps {
		if len(Blockers(ws, t, "")) == 0 {
			return t, step
		}
		var next time.Time
		for i := range ws {
			if c := ws[i].NextChange(t); !c.IsZero() && (next.IsZero() || c.Before(next)) {
				next = c
			}
		}
		if next.IsZero() || next.Sub(now) > openingHorizon {
			return time.Time{}, step
		}
		t = next
	}
	return time.Time{}, openingSteps
}

// phaseWindows are the windows over the current phase: the fleet's, the rollout's, the
// phase's own.
func phaseWindows(p plan.Plan, o Observed, sp spec.Phase) []spec.Window {
	return slices.Concat(o.FleetWindows, p.Windows, sp.Windows)
}

// windowGate decides whether the windows let phase ph admit now, after a person's
// override-window: held (no admission, no phase start) and all (hold: all, the phase waits
// entirely). It records the hold in the rollout (for status) and asks to come back at the
// next opening.
func (ps *pass) windowGate(prev *state.WindowHold, ph *state.PhaseState, sp spec.Phase) (held, all bool) {
	st, p, o, now := ps.st, ps.p, ps.o, ps.now
	ws := phaseWindows(p, o, sp)
	if ph.Override != "" && !holds(ws, ph.Override, now) && !holdsChild(o, ph.Override, now) {
		ph.Override = "" // the window it let through no longer holds the phase: the override is over
	}
	blockers := Blockers(ws, now, ph.Override)
	if !admitsMore(st.Rollout, ph, sp) && !slices.ContainsFunc(blockers, holdsAll) {
		return false, false // everyone admitted: a window holds no settling or soak (but hold: all)
	}
	ps.overrideWindow(ph, blockers)
	if ph.Override != "" {
		blockers = Blockers(ws, now, ph.Override)
	}
	if len(blockers) == 0 {
		return false, false
	}
	all = slices.ContainsFunc(blockers, holdsAll)
	ps.holdFor(prev, ps.hold(ph.Name, names(blockers), nil, all), o.nextOpening(ws, now))
	return true, all
}

// admitsMore reports whether phase ph has yet to start or to admit some of its members
// (its size's worth, in flight or not, a manual gate's included): only then does a window
// hold its admissions, and an override have one to let through.
func admitsMore(r *state.Rollout, ph *state.PhaseState, sp spec.Phase) bool {
	if ph.Status == PhasePending {
		return true
	}
	a := nextAdmission(batchOf(r, ph, sp)) // InFlight 0: who is still to come, not who fits now
	return len(a.Next) > 0 || !a.Full
}

func holdsAll(w spec.Window) bool { return w.Hold == spec.HoldAll }

// overrideWindow applies override-window to the current phase when it names a window that
// holds it now: recorded (who, why) and consumed; the phase's next admission goes through
// that window once (PhaseState.Override). One that names no holding window is refused.
func (ps *pass) overrideWindow(ph *state.PhaseState, blockers []spec.Window) {
	st, o, now := ps.st, ps.o, ps.now
	c := o.Controls
	if c == nil || c.OverrideWindow == "" || st.Paused != nil {
		return
	}
	name := c.OverrideWindow
	if !slices.ContainsFunc(blockers, func(w spec.Window) bool { return w.Name == name }) && !holdsChild(o, name, now) {
		return // refused by steerWindows, which sees every window
	}
	ph.Override = name
	ps.consume(contract.OverrideWindowKey)
	ps.emit(st.Rollout, EvWindowOverridden, fmt.Sprintf("window %s overridden by %s for one admission of phase %s", name, who(c), ph.Name))
}

// holds reports whether window name is among ws's blockers at now.
func holds(ws []spec.Window, name string, now time.Time) bool {
	return slices.ContainsFunc(Blockers(ws, now, ""), func(w spec.Window) bool { return w.Name == name })
}

// holdsChild reports whether window name is an AppProject window holding some child now.
func holdsChild(o Observed, name string, now time.Time) bool {
	for _, ws := range o.ProjectWindows {
		if holds(ws, name, now) {
			return true
		}
	}
	return false
}

// projectHeld takes out of next the children whose AppProject's sync windows deny syncs
// now (Argo CD would not sync them), recording the hold; it returns who may be admitted.
func (ps *pass) projectHeld(prev *state.WindowHold, ph *state.PhaseState, next []string) []string {
	o, now := ps.o, ps.now
	var ok, held, blocking []string
	var opens time.Time
	for _, c := range next {
		ws := o.ProjectWindows[c]
		b := Blockers(ws, now, ph.Override)
		if len(b) == 0 {
			ok = append(ok, c)
			continue
		}
		held = append(held, c)
		blocking = append(blocking, names(b)...)
		if at := o.nextOpening(ws, now); !at.IsZero() && (opens.IsZero() || at.Before(opens)) {
			opens = at
		}
	}
	if len(held) > 0 {
		slices.Sort(blocking)
		ps.holdFor(prev, ps.hold(ph.Name, slices.Compact(blocking), held, false), opens)
	}
	return ok
}

// admissible is who of next the windows let in: nobody while held, else those whose
// AppProject allows syncs now.
func (ps *pass) admissible(prev *state.WindowHold, ph *state.PhaseState, next []string, held bool) []string {
	if held || len(next) == 0 {
		return nil
	}
	return ps.projectHeld(prev, ph, next)
}

// hold is a hold, from now, of phase by windows (of the admission of children only, when
// named; of the whole phase when all).
func (ps *pass) hold(phase string, windows, children []string, all bool) *state.WindowHold {
	h := &state.WindowHold{Phase: phase, Windows: windows, Children: children, Since: ps.now}
	if all {
		h.Hold = spec.HoldAll
	}
	return h
}

// holdFor records window hold h in the rollout (prev is the hold of the last pass: kept
// while it lasts, so a hold costs one write), tells people once, and comes back at the
// opening.
func (ps *pass) holdFor(prev, h *state.WindowHold, opens time.Time) {
	r := ps.st.Rollout
	if !opens.IsZero() {
		h.Opens = &opens
		ps.requeue(opens, "window "+strings.Join(h.Windows, ", ")+" opens")
	}
	if old := prev; old != nil && old.Phase == h.Phase && slices.Equal(old.Windows, h.Windows) && old.Hold == h.Hold {
		h.Since = old.Since
		if slices.Equal(old.Children, h.Children) && sameTime(old.Opens, h.Opens) {
			r.Window = old // progress cleared it: the same hold, kept as it was (no write)
			return
		}
	} else {
		ps.emit(r, EvWindowHeld, "phase "+h.Phase+" "+HoldText(h))
	}
	r.Window = h
}

// HoldText says what a window hold holds and until when, for history, Events and status.
func HoldText(h *state.WindowHold) string {
	what := "held by window"
	if h.Hold == spec.HoldAll {
		what = "waits entirely (hold: all) for window"
	}
	s := fmt.Sprintf("%s %s", what, strings.Join(h.Windows, ", "))
	if len(h.Children) > 0 {
		s += " (AppProject sync windows deny syncs of " + describe(h.Children) + ")"
	}
	if h.Opens != nil {
		return s + "; next opening " + h.Opens.UTC().Format(time.RFC3339)
	}
	return s + "; no opening known (none within 400 days or 2000 window changes; fix: change the windows, or override-window)"
}

func names(ws []spec.Window) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Name
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// removalsHeld reports whether the fleet's and the rollout's windows hold removals of
// children that left (no new removal group starts; one under way finishes).
func (ps *pass) removalsHeld() bool {
	p, o, now := ps.p, ps.o, ps.now
	ws := slices.Concat(o.FleetWindows, p.Windows)
	if len(Blockers(ws, now, "")) == 0 {
		return false
	}
	if at := o.nextOpening(ws, now); !at.IsZero() {
		ps.requeue(at, "a window holding removals opens")
	}
	return true
}

// knownWindow reports whether any window the rollout sees is called name.
func knownWindow(p plan.Plan, o Observed, name string) bool {
	has := func(ws []spec.Window) bool {
		return slices.ContainsFunc(ws, func(w spec.Window) bool { return w.Name == name })
	}
	if has(o.FleetWindows) || has(p.Windows) {
		return true
	}
	for _, ph := range p.Phases {
		if has(ph.Windows) {
			return true
		}
	}
	for _, ws := range o.ProjectWindows {
		if has(ws) {
			return true
		}
	}
	return false
}
