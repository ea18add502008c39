package spec

import (
	"strings"
	"testing"
	"time"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func compiled(t *testing.T, w Window) Window {
	t.Helper()
	if err := w.Compile(); err != nil {
		t.Fatalf("compile %+v: %v", w, err)
	}
	return w
}

// TestWindowActiveAt: time passed in, across midnight, in time zones and over daylight
// saving changes (spring forward and fall back in Europe/Berlin and America/New_York).
func TestWindowActiveAt(t *testing.T) {
	nightly := Window{Name: "nightly", Kind: WindowDeny, Schedule: "0 22 * * *", Duration: "8h", TimeZone: "Europe/Berlin"}
	ny := Window{Name: "ny", Kind: WindowAllow, Schedule: "30 1 * * *", Duration: "2h", TimeZone: "America/New_York"}
	span := Window{Name: "freeze", Kind: WindowDeny, Start: "2026-12-20T18:00:00+01:00", End: "2027-01-06T08:00:00+01:00"}
	xmas := Window{Name: "xmas", Kind: WindowDeny, BlackoutDates: []string{"2026-12-24", "2026-03-29"}, TimeZone: "Europe/Berlin"}
	for _, tc := range []struct {
		name string
		w    Window
		at   string
		want bool
	}{
		{"before the nightly window", nightly, "2026-11-25T20:59:59Z", false},
		{"nightly starts 22:00 Berlin (21:00 UTC)", nightly, "2026-11-25T21:00:00Z", true},
		{"across midnight", nightly, "2026-11-25T23:30:00Z", true},
		{"until 06:00 Berlin, exclusive", nightly, "2026-11-26T05:00:00Z", false},
		{"just before its end", nightly, "2026-11-26T04:59:59Z", true},
		{"summer: 22:00 Berlin is 20:00 UTC", nightly, "2026-07-01T20:00:00Z", true},
		{"summer: 21:00 UTC is inside", nightly, "2026-07-02T03:59:00Z", true},
		{"summer: 04:00 UTC is 06:00 Berlin, outside", nightly, "2026-07-02T04:00:00Z", false},
		// 2026-03-29 Berlin springs forward 02:00→03:00: the window of the 28th started
		// 22:00 CET (21:00 UTC) and lasts 8 real hours, to 05:00 UTC (07:00 CEST).
		{"spring forward: 8 real hours", nightly, "2026-03-29T04:59:00Z", true},
		{"spring forward: ends 07:00 CEST", nightly, "2026-03-29T05:00:00Z", false},
		// 2026-10-25 Berlin falls back 03:00→02:00: the window of the 24th started 22:00
		// CEST (20:00 UTC) and ends 8 h later, 04:00 UTC (05:00 CET).
		{"fall back: 8 real hours", nightly, "2026-10-25T03:59:00Z", true},
		{"fall back: ends 05:00 CET", nightly, "2026-10-25T04:00:00Z", false},
		// New York: 01:30 local. 2026-03-08 springs forward at 02:00 (01:30 EST exists, 06:30 UTC).
		{"NY spring forward day 01:30 EST", ny, "2026-03-08T06:30:00Z", true},
		{"NY spring forward +2h real", ny, "2026-03-08T08:29:00Z", true},
		{"NY spring forward window over", ny, "2026-03-08T08:30:00Z", false},
		// 2026-11-01 falls back at 02:00 EDT: 01:30 happens twice (05:30 and 06:30 UTC) and
		// the schedule starts at both, so that night the window lasts from the first start
		// to 2 h after the second.
		{"NY fall back: first 01:30 (EDT)", ny, "2026-11-01T05:30:00Z", true},
		{"NY fall back: second 01:30 (EST) starts again", ny, "2026-11-01T07:30:00Z", true},
		{"NY fall back: over 2 h after the second", ny, "2026-11-01T08:30:00Z", false},
		{"NY fall back: not before the first", ny, "2026-11-01T05:29:00Z", false},
		{"span: before", span, "2026-12-20T16:59:59Z", false},
		{"span: start inclusive", span, "2026-12-20T17:00:00Z", true},
		{"span: end exclusive", span, "2027-01-06T07:00:00Z", false},
		{"blackout: Berlin midnight is 23:00 UTC the day before", xmas, "2026-12-23T23:00:00Z", true},
		{"blackout: not yet", xmas, "2026-12-23T22:59:59Z", false},
		{"blackout: whole day", xmas, "2026-12-24T22:59:59Z", true},
		{"blackout: over at Berlin midnight", xmas, "2026-12-24T23:00:00Z", false},
		{"blackout on a 23-hour DST day: from 23:00 UTC", xmas, "2026-03-28T23:00:00Z", true},
		{"blackout on a 23-hour DST day: to 22:00 UTC", xmas, "2026-03-29T21:59:59Z", true},
		{"blackout on a 23-hour DST day: over", xmas, "2026-03-29T22:00:00Z", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := compiled(t, tc.w)
			if got := w.ActiveAt(mustTime(t, tc.at)); got != tc.want {
				t.Fatalf("%s at %s: active %v, want %v", w.Name, tc.at, got, tc.want)
			}
		})
	}
}

func TestWindowNextChange(t *testing.T) {
	nightly := compiled(t, Window{Name: "n", Kind: WindowDeny, Schedule: "0 22 * * *", Duration: "8h", TimeZone: "Europe/Berlin"})
	for _, tc := range []struct{ at, want string }{
		{"2026-11-25T12:00:00Z", "2026-11-25T21:00:00Z"}, // the next start
		{"2026-11-25T23:00:00Z", "2026-11-26T05:00:00Z"}, // inside: its end
		{"2026-03-28T22:00:00Z", "2026-03-29T05:00:00Z"}, // spring forward night
	} {
		if got := nightly.NextChange(mustTime(t, tc.at)); !got.Equal(mustTime(t, tc.want)) {
			t.Errorf("NextChange(%s) = %s, want %s", tc.at, got.UTC().Format(time.RFC3339), tc.want)
		}
	}
}

func TestWindowCompileErrorsNameFieldAndFix(t *testing.T) {
	for _, tc := range []struct {
		w     Window
		field string
	}{
		{Window{Kind: WindowDeny, Start: "2026-01-01T00:00:00Z", End: "2026-01-02T00:00:00Z"}, "name"},
		{Window{Name: "a", Kind: "block", Start: "2026-01-01T00:00:00Z", End: "2026-01-02T00:00:00Z"}, "kind"},
		{Window{Name: "a", Kind: WindowDeny, Schedule: "0 25 * * *", Duration: "1h"}, "schedule"},
		{Window{Name: "a", Kind: WindowDeny, Schedule: "0 0 0 * * *", Duration: "1h"}, "schedule"},
		{Window{Name: "a", Kind: WindowDeny, Schedule: "@daily", Duration: "1h"}, "schedule"},
		{Window{Name: "a", Kind: WindowDeny, Schedule: "CRON_TZ=UTC 0 1 * * *", Duration: "1h"}, "schedule"},
		{Window{Name: "a", Kind: WindowDeny, Schedule: "0 1 * * *", Duration: "1 hour"}, "duration"},
		{Window{Name: "a", Kind: WindowDeny, Schedule: "0 1 * * *"}, "duration"},
		{Window{Name: "a", Kind: WindowDeny, Schedule: "0 1 * * *", Duration: "1h", TimeZone: "Mars/Olympus"}, "timeZone"},
		{Window{Name: "a", Kind: WindowDeny, Start: "2026-01-02", End: "2026-01-03T00:00:00Z"}, "start"},
		{Window{Name: "a", Kind: WindowDeny, Start: "2026-01-02T00:00:00Z", End: "2026-01-01T00:00:00Z"}, "end"},
		{Window{Name: "a", Kind: WindowDeny, BlackoutDates: []string{"24.12.2026"}}, "blackoutDates[0]"},
		{Window{Name: "a", Kind: WindowAllow, BlackoutDates: []string{"2026-12-24"}}, "blackoutDates"},
		{Window{Name: "a", Kind: WindowDeny}, "schedule"},
		{Window{Name: "a", Kind: WindowDeny, Schedule: "0 1 * * *", Duration: "1h", Start: "2026-01-02T00:00:00Z"}, "schedule"},
		{Window{Name: "a", Kind: WindowDeny, Schedule: "0 1 * * *", Duration: "1h", Hold: "everything"}, "hold"},
	} {
		err := tc.w.Compile()
		we, ok := err.(*WindowError)
		if !ok || we.Field != tc.field || we.Fix == "" {
			t.Errorf("%+v: error %v, want one on %s with a fix", tc.w, err, tc.field)
		}
	}
}

func TestWindowsInTheSpec(t *testing.T) {
	s := parseOK(t, phaseSpecWith(`
      windows:
      - name: business-hours
        kind: allow
        schedule: "0 8 * * 1-5"
        duration: 10h
        timeZone: Europe/Berlin
      phases:
      - name: dev
        targets: [{clusters: [dev]}]
        windows:
        - {name: freeze, kind: deny, start: "2026-12-20T00:00:00Z", end: "2027-01-06T00:00:00Z", hold: all}
`))
	if len(s.Windows) != 1 || s.Windows[0].Hold != HoldAdmissions || len(s.Phases[0].Windows) != 1 || s.Phases[0].Windows[0].Hold != HoldAll {
		t.Fatalf("windows %+v, phase windows %+v", s.Windows, s.Phases[0].Windows)
	}
	_, err := Parse("w.yaml", []byte(phaseSpecWith(`
      windows:
      - {name: a, kind: deny, schedule: "0 8 * * *", duration: 1h}
      - {name: a, kind: deny, schedule: "61 8 * * *", duration: 1h}
      phases:
      - name: dev
        targets: [{clusters: [dev]}]
`)), nil)
	if err == nil || !strings.Contains(err.Error(), "windows[1].schedule") || !strings.Contains(err.Error(), "fix:") {
		t.Fatalf("a bad schedule: %v", err)
	}
}

// FuzzWindowCompile: no input panics the parser or the evaluation, and a window that
// compiles evaluates and walks forward.
func FuzzWindowCompile(f *testing.F) {
	f.Add("0 22 * * *", "8h", "", "", "Europe/Berlin", "2026-12-24")
	f.Add("", "", "2026-12-20T18:00:00+01:00", "2027-01-06T08:00:00+01:00", "UTC", "")
	f.Add("*/5 * * * 1-5", "1m", "", "", "America/New_York", "")
	f.Fuzz(func(t *testing.T, sched, dur, start, end, tz, date string) {
		w := Window{Name: "f", Kind: WindowDeny, Schedule: sched, Duration: dur, Start: start, End: end, TimeZone: tz}
		if date != "" {
			w.BlackoutDates = []string{date}
		}
		if w.Compile() != nil {
			return
		}
		now := time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)
		_ = w.ActiveAt(now)
		if c := w.NextChange(now); !c.IsZero() && !c.After(now) {
			t.Fatalf("NextChange(%s) = %s does not move forward", now, c)
		}
	})
}

// phaseSpecWith is a phaseDeployment spec whose deploymentStrategy body (type, windows,
// phases) is body, indented under it.
func phaseSpecWith(body string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: demo
spec:
  generators:
  - clusters: {}
    deploymentStrategy:
      type: phaseDeployment` + strings.ReplaceAll(body, "\n      ", "\n      ") + `
  template:
    metadata:
      name: '{{name}}-demo'
    spec:
      project: default
      source: {repoURL: https://example.com/x.git, path: p}
      destination: {server: '{{server}}', namespace: demo}
`
}

func parseOK(t *testing.T, src string) *Spec {
	t.Helper()
	s, err := Parse("w.yaml", []byte(src), nil)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return s
}
