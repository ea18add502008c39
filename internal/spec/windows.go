package spec

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Window kinds and holds (extension `windows`, issue 16).
const (
	WindowAllow = "allow"
	WindowDeny  = "deny"
	// HoldAdmissions (default): outside the window nothing is admitted or removed; a phase
	// already admitted keeps settling (hooks, checks, soak).
	HoldAdmissions = "admissions"
	// HoldAll: the current phase waits too (no hook starts, no soak ends).
	HoldAll = "all"
)

// Window is a change window: an allow or deny window of the rollout, of a phase, of the
// fleet (the fleet ConfigMap's windows key) or of an AppProject (its syncWindows). Exactly
// one of Schedule (+ Duration), Start/End and BlackoutDates says when it is active. It is
// written to the plan as JSON and compiled by Compile before use.
type Window struct {
	Name          string   `json:"name"`
	Kind          string   `json:"kind"`
	Schedule      string   `json:"schedule,omitempty"`
	Duration      string   `json:"duration,omitempty"`
	Start         string   `json:"start,omitempty"`
	End           string   `json:"end,omitempty"`
	BlackoutDates []string `json:"blackoutDates,omitempty"`
	TimeZone      string   `json:"timeZone,omitempty"`
	Hold          string   `json:"hold,omitempty"`

	// compiled by Compile
	loc      *time.Location
	sched    cron.Schedule
	dur      time.Duration
	start    time.Time
	end      time.Time
	blackout []time.Time // midnights in loc, sorted
}

// WindowError is a window that cannot be used: the field (relative to the window) and a fix.
type WindowError struct {
	Field string
	Msg   string
	Fix   string
}

func (e *WindowError) Error() string {
	return fmt.Sprintf("%s: %s (fix: %s)", e.Field, e.Msg, e.Fix)
}

// cronParser reads the 5-field cron of Argo CD's sync windows (minute hour dom month dow).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// Compile validates w, applies the defaults (timeZone UTC, hold admissions) and compiles its
// schedule, times or dates. The error names the field and the fix.
func (w *Window) Compile() error {
	if w.Name == "" {
		return &WindowError{"name", "is required", "name the window; the override key names it"}
	}
	if w.Kind != WindowAllow && w.Kind != WindowDeny {
		return &WindowError{"kind", fmt.Sprintf("unknown value %q", w.Kind), "use allow or deny"}
	}
	if w.Hold == "" {
		w.Hold = HoldAdmissions
	}
	if w.Hold != HoldAdmissions && w.Hold != HoldAll {
		return &WindowError{"hold", fmt.Sprintf("unknown value %q", w.Hold), "use admissions or all"}
	}
	if strings.HasPrefix(w.TimeZone, "CRON_TZ=") || strings.HasPrefix(w.TimeZone, "TZ=") {
		return &WindowError{"timeZone", fmt.Sprintf("unknown time zone %q", w.TimeZone), "write the IANA name alone, e.g. Europe/Berlin"}
	}
	loc, err := time.LoadLocation(w.TimeZone)
	if err != nil || strings.EqualFold(w.TimeZone, "local") {
		return &WindowError{"timeZone", fmt.Sprintf("unknown time zone %q", w.TimeZone), "use an IANA name such as Europe/Berlin or UTC"}
	}
	w.loc = loc
	return w.compileWhen()
}

// compileWhen compiles the one of schedule, start/end and blackoutDates the window uses.
func (w *Window) compileWhen() error {
	forms := 0
	for _, set := range []bool{w.Schedule != "" || w.Duration != "", w.Start != "" || w.End != "", len(w.BlackoutDates) > 0} {
		if set {
			forms++
		}
	}
	if forms != 1 {
		return &WindowError{"schedule", "a window needs exactly one of schedule+duration, start+end, blackoutDates",
			`write e.g. schedule: "0 22 * * *" with duration: 8h, or start and end as RFC 3339 times, or blackoutDates`}
	}
	switch {
	case w.Schedule != "" || w.Duration != "":
		return w.compileSchedule()
	case len(w.BlackoutDates) > 0:
		return w.compileBlackout()
	default:
		return w.compileSpan()
	}
}

func (w *Window) compileSchedule() error {
	if strings.Contains(w.Schedule, "TZ=") || strings.HasPrefix(strings.TrimSpace(w.Schedule), "@") {
		return &WindowError{"schedule", fmt.Sprintf("%q is not a 5-field cron", w.Schedule), `write minute hour day-of-month month day-of-week, e.g. "0 22 * * 1-5", and the zone in timeZone`}
	}
	s, err := cronParser.Parse(w.Schedule)
	if err != nil {
		return &WindowError{"schedule", fmt.Sprintf("%q: %v", w.Schedule, err), `write minute hour day-of-month month day-of-week, e.g. "0 22 * * 1-5"`}
	}
	d, err := time.ParseDuration(w.Duration)
	if err != nil || d <= 0 {
		return &WindowError{"duration", fmt.Sprintf("invalid duration %q", w.Duration), `write a positive Go duration such as "8h" or "90m"`}
	}
	w.sched, w.dur = s, d
	return nil
}

func (w *Window) compileSpan() error {
	var err error
	if w.start, err = time.Parse(time.RFC3339, w.Start); err != nil {
		return &WindowError{"start", fmt.Sprintf("not an RFC 3339 time: %q", w.Start), "write e.g. 2026-12-20T18:00:00+01:00"}
	}
	if w.end, err = time.Parse(time.RFC3339, w.End); err != nil {
		return &WindowError{"end", fmt.Sprintf("not an RFC 3339 time: %q", w.End), "write e.g. 2027-01-06T08:00:00+01:00"}
	}
	if !w.end.After(w.start) {
		return &WindowError{"end", fmt.Sprintf("%s is not after start %s", w.End, w.Start), "make end later than start"}
	}
	return nil
}

func (w *Window) compileBlackout() error {
	if w.Kind != WindowDeny {
		return &WindowError{"blackoutDates", "only a deny window has blackout dates", "write kind: deny"}
	}
	w.blackout = nil
	for i, s := range w.BlackoutDates {
		d, err := time.ParseInLocation(time.DateOnly, s, w.loc)
		if err != nil {
			return &WindowError{fmt.Sprintf("blackoutDates[%d]", i), fmt.Sprintf("not a date: %q", s), "write YYYY-MM-DD, e.g. 2026-12-24"}
		}
		w.blackout = append(w.blackout, d)
	}
	slices.SortFunc(w.blackout, func(a, b time.Time) int { return a.Compare(b) })
	return nil
}

// CompileWindows compiles every window and refuses duplicate names; the error names the
// window by index.
func CompileWindows(ws []Window) error {
	seen := map[string]bool{}
	for i := range ws {
		if err := ws[i].Compile(); err != nil {
			return fmt.Errorf("windows[%d].%w", i, err)
		}
		if seen[ws[i].Name] {
			return fmt.Errorf("windows[%d].name: duplicate window name %q (fix: give every window its own name)", i, ws[i].Name)
		}
		seen[ws[i].Name] = true
	}
	return nil
}
