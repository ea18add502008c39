package rollout

import (
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestTheNextOpeningSearchIsBounded: a window that never closes (a deny window every
// minute lasting two) has no known opening, found within openingSteps changes, not after
// a year's worth of minutes.
func TestTheNextOpeningSearchIsBounded(t *testing.T) {
	always := spec.Window{Name: "always", Kind: spec.WindowDeny, Schedule: "* * * * *", Duration: "2m"}
	hourly := spec.Window{Name: "hourly", Kind: spec.WindowDeny, Schedule: "0 * * * *", Duration: "30m"}
	for _, w := range []*spec.Window{&always, &hourly} {
		if err := w.Compile(); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		ws    []spec.Window
		now   int
		opens int // -1: none known
	}{
		{"always active", []spec.Window{always}, 0, -1},
		{"an hourly window opens at its end", []spec.Window{hourly}, 60, 1800},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC).Add(time.Duration(tc.now) * time.Second)
			got, steps := nextOpening(tc.ws, now)
			if steps > openingSteps {
				t.Fatalf("walked %d changes, at most %d", steps, openingSteps)
			}
			want := time.Time{}
			if tc.opens >= 0 {
				want = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC).Add(time.Duration(tc.opens) * time.Second)
			}
			if !got.Equal(want) {
				t.Fatalf("opens %s, want %s", got, want)
			}
		})
	}
}

// TestOnePassSearchesEachWindowSetOnce: children of the same AppProject (its windows
// compiled per child) share one search; another project's windows get their own.
func TestOnePassSearchesEachWindowSetOnce(t *testing.T) {
	team := func() []spec.Window { return []spec.Window{win(t, "appproject/team/0", spec.WindowDeny, -10, 50, "")} }
	o := Observed{openings: openings{}, ProjectWindows: map[string][]spec.Window{
		"dev-1": team(), "dev-2": team(), "prod-1": {win(t, "appproject/ops/0", spec.WindowDeny, -10, 70, "")},
	}}
	r := &state.Rollout{}
	ps := &pass{st: &state.State{Rollout: r}, o: o, now: at(0)}
	ok := ps.projectHeld(nil, &state.PhaseState{Name: "dev"}, []string{"dev-1", "dev-2", "prod-1"})
	if len(ok) != 0 || r.Window == nil || !r.Window.Opens.Equal(at(50)) {
		t.Fatalf("admissible %v hold %+v", ok, r.Window)
	}
	if len(o.openings) != 2 {
		t.Fatalf("%d searches, want one per project: %v", len(o.openings), o.openings)
	}
}
