package rollout

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// win compiles a window from t0 + from seconds to t0 + to seconds.
func win(t *testing.T, name, kind string, from, to int, hold string) spec.Window {
	t.Helper()
	w := spec.Window{Name: name, Kind: kind, Start: at(from).Format(time.RFC3339), End: at(to).Format(time.RFC3339), Hold: hold}
	if err := w.Compile(); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestBlockersAndNextOpening(t *testing.T) {
	deny := win(t, "freeze", spec.WindowDeny, -100, 100, "")
	later := win(t, "later", spec.WindowDeny, 100, 200, "")
	allow := win(t, "ops", spec.WindowAllow, 300, 400, "")
	for _, tc := range []struct {
		name     string
		ws       []spec.Window
		now      int
		override string
		blockers []string
		opens    int // -1: none
	}{
		{"no windows", nil, 0, "", nil, 0},
		{"inside a deny window", []spec.Window{deny}, 0, "", []string{"freeze"}, 100},
		{"two deny windows back to back", []spec.Window{deny, later}, 0, "", []string{"freeze"}, 200},
		{"outside the allow window", []spec.Window{allow}, 0, "", []string{"ops"}, 300},
		{"inside the allow window", []spec.Window{allow}, 350, "", nil, 350},
		{"deny wins over allow", []spec.Window{allow, win(t, "x", spec.WindowDeny, 250, 350, "")}, 0, "", []string{"ops"}, 350},
		{"the override lifts a deny window", []spec.Window{deny}, 0, "freeze", nil, 100},
		{"the override opens an allow window", []spec.Window{allow}, 0, "ops", nil, 300},
		{"an override of another window lifts nothing", []spec.Window{deny, allow}, 0, "freeze", []string{"ops"}, 300},
		{"never opens", []spec.Window{win(t, "forever", spec.WindowDeny, -1, 100*365*86400, "")}, 0, "", []string{"forever"}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(Blockers(tc.ws, at(tc.now), tc.override)); !slices.Equal(got, tc.blockers) && len(got)+len(tc.blockers) > 0 {
				t.Fatalf("blockers %v, want %v", got, tc.blockers)
			}
			got, want := NextOpening(tc.ws, at(tc.now)), time.Time{}
			if tc.opens >= 0 {
				want = at(tc.opens)
			}
			if !got.Equal(want) {
				t.Fatalf("next opening %s, want %s", got, want)
			}
		})
	}
}

// TestNextOpeningOfANightlyDenyWindowAcrossDST: the next opening is the wall-clock end in
// the window's zone, whatever the offset that night.
func TestNextOpeningOfANightlyDenyWindowAcrossDST(t *testing.T) {
	w := spec.Window{Name: "nightly", Kind: spec.WindowDeny, Schedule: "0 22 * * *", Duration: "8h", TimeZone: "Europe/Berlin"}
	if err := w.Compile(); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 10, 24, 23, 0, 0, 0, time.UTC) // 01:00 CEST, fall back night
	if got, want := NextOpening([]spec.Window{w}, now), time.Date(2026, 10, 25, 4, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("next opening %s, want %s", got, want)
	}
}

func TestADenyWindowHoldsTheNextPhaseAndTheOverrideLetsOneAdmissionThrough(t *testing.T) {
	phases := threePhases()
	w := newWorld(phases...)
	w.plan.Windows = []spec.Window{win(t, "freeze", spec.WindowDeny, 15, 100000, "")}
	w.step(t, 0) // dev admitted before the window
	w.syncs(5, "r2", "dev-1", "dev-2")
	acts := w.step(t, 20) // dev done; staging held
	r := w.st.Rollout
	if r.Phase != 1 || r.Phases[1].Status != PhasePending || len(r.Phases[1].Admitted) != 0 {
		t.Fatalf("staging not held: phase %d %+v", r.Phase, r.Phases[1])
	}
	if r.Window == nil || !slices.Equal(r.Window.Windows, []string{"freeze"}) || r.Window.Opens == nil || !r.Window.Opens.Equal(at(100000)) {
		t.Fatalf("hold %+v", r.Window)
	}
	if !slices.Contains(events(acts), EvWindowHeld) || !slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == ActRequeue && a.At.Equal(at(100000)) }) {
		t.Fatalf("no event or no wake at the opening: %+v", acts)
	}
	w.edit(map[string]string{"override-window": "freeze", "by": "alice", "reason": "hotfix"})
	acts = w.step(t, 30)
	r = w.st.Rollout
	if len(r.Phases[1].Admitted) != 2 || r.Phases[1].Override != "" || !slices.Contains(consumed(acts), "override-window") {
		t.Fatalf("the override did not admit staging once: %+v consumed %v", r.Phases[1], consumed(acts))
	}
	if h := r.History; !strings.Contains(h[len(h)-2].Message+h[len(h)-1].Message, "overridden by alice") {
		t.Fatalf("the override is not in the history: %+v", h)
	}
	w.obs.Controls = nil
	w.syncs(35, "r2", "staging-1", "staging-2")
	w.step(t, 40)
	w.step(t, 200) // staging's soak ends: prod is held again
	r = w.st.Rollout
	if r.Phase != 2 || len(r.Phases[2].Admitted) != 0 || r.Window == nil {
		t.Fatalf("prod not held again: phase %d %+v hold %+v", r.Phase, r.Phases[2], r.Window)
	}
	w.plan.Windows = nil // the window removed by a spec commit
	w.step(t, 210)
	if r = w.st.Rollout; len(r.Phases[2].Admitted) == 0 || r.Window != nil {
		t.Fatalf("prod not admitted once the window is gone: %+v hold %+v", r.Phases[2], r.Window)
	}
}

func TestHoldAllStopsTheAdmittedPhaseToo(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.syncs(15, "r2", "staging-1", "staging-2")
	w.step(t, 20) // staging soaking until t0+80s
	w.plan.Phases[1].Windows = []spec.Window{win(t, "incident", spec.WindowDeny, 25, 1000, spec.HoldAll)}
	w.step(t, 100)
	if r := w.st.Rollout; r.Phase != 1 || r.Window == nil || r.Window.Hold != spec.HoldAll {
		t.Fatalf("hold: all let the soak end: phase %d hold %+v", r.Phase, r.Window)
	}
	w.plan.Phases[1].Windows[0] = win(t, "incident", spec.WindowDeny, 25, 1000, spec.HoldAdmissions)
	w.step(t, 110)
	if r := w.st.Rollout; r.Phase != 2 {
		t.Fatalf("hold: admissions lets the admitted phase's soak end: phase %d", r.Phase)
	}
}

func TestAnAppProjectWindowHoldsItsChildrenOnly(t *testing.T) {
	w := newWorld(threePhases()...)
	w.obs.ProjectWindows = map[string][]spec.Window{"dev-2": {win(t, "appproject/team/0", spec.WindowDeny, -10, 50, "")}}
	w.step(t, 0)
	r := w.st.Rollout
	if !slices.Equal(r.Phases[0].Admitted, []string{"dev-1"}) || r.Window == nil || !slices.Equal(r.Window.Children, []string{"dev-2"}) {
		t.Fatalf("admitted %v hold %+v", r.Phases[0].Admitted, r.Window)
	}
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	if r = w.st.Rollout; r.Phase != 0 {
		t.Fatalf("dev ended without dev-2: phase %d", r.Phase)
	}
	w.step(t, 50)
	if r = w.st.Rollout; !slices.Contains(r.Phases[0].Admitted, "dev-2") {
		t.Fatalf("dev-2 not admitted once its project's window closed: %v", r.Phases[0].Admitted)
	}
}

func TestAnOverrideOfAnUnknownWindowIsRefused(t *testing.T) {
	w := newWorld(threePhases()...)
	w.edit(map[string]string{"override-window": "nope"})
	w.step(t, 0)
	if !strings.Contains(w.st.Rejected["override-window"], `no window "nope"`) {
		t.Fatalf("rejected %v", w.st.Rejected)
	}
}

// TestAHugeRefusedEditStaysSmall: the engine's own refusals are cut like the parser's, so
// a megabyte written to override-window cannot make the state too big to write.
func TestAHugeRefusedEditStaysSmall(t *testing.T) {
	w := newWorld(threePhases()...)
	w.edit(map[string]string{"override-window": strings.Repeat("x", 1<<20)})
	w.step(t, 0)
	got := w.st.Rejected["override-window"]
	if !strings.Contains(got, "no window") || !strings.Contains(got, "(1048576 bytes)") || len(got) > 1024 {
		t.Fatalf("rejected %d bytes: %.300s", len(got), got)
	}
}

func TestAWindowHoldsRemovals(t *testing.T) {
	w := newWorld(threePhases()...)
	s := w.finish(t, 0, "r2")
	w.plan.Windows = []spec.Window{win(t, "freeze", spec.WindowDeny, 0, 100000, "")}
	w.leave("prod-1")
	w.step(t, s+10)
	if len(w.st.Removing) != 0 {
		t.Fatalf("a removal started inside a deny window: %v", w.st.Removing)
	}
	w.plan.Windows = nil
	w.step(t, s+20)
	if len(w.st.Removing) == 0 {
		t.Fatal("the removal did not start once the window was gone")
	}
}

// TestAHoldLastingCostsOneWrite: stepping a held rollout again and again keeps its state
// (no new generation) and says WindowHeld on the first pass only.
func TestAHoldLastingCostsOneWrite(t *testing.T) {
	w := newWorld(threePhases()...)
	w.plan.Windows = []spec.Window{win(t, "freeze", spec.WindowDeny, 15, 100000, "")}
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	held := 0
	var gen int64
	for i, s := range []int{20, 30, 40, 50, 60} {
		ev := strings.Join(events(w.step(t, s)), ",")
		if i == 0 && !strings.Contains(ev, EvWindowHeld) {
			t.Fatalf("staging not held: %s", ev)
		}
		if i > 0 {
			held += strings.Count(ev, EvWindowHeld)
		}
		if w.st.Rollout.Window == nil {
			t.Fatalf("pass %d: the hold is gone from the state", i)
		}
		if i > 0 && w.st.Generation != gen {
			t.Fatalf("pass %d: a lasting hold wrote the state again (generation %d, was %d)", i, w.st.Generation, gen)
		}
		gen = w.st.Generation
	}
	if held != 0 {
		t.Fatalf("WindowHeld said %d times more, want once in all", held)
	}
}

// TestAWindowHoldsNoPhaseWithEveryoneAdmitted: a window that starts while the phase has
// admitted all its members (they settle, it soaks) records no hold for it and leaves an
// override-window for the next phase it holds.
func TestAWindowHoldsNoPhaseWithEveryoneAdmitted(t *testing.T) {
	w := newWorld(threePhases()...)
	w.plan.Windows = []spec.Window{win(t, "freeze", spec.WindowDeny, 5, 100000, "")}
	w.step(t, 0) // dev admitted before the window
	w.edit(map[string]string{"override-window": "freeze", "by": "alice"})
	acts := w.step(t, 10)
	if r := w.st.Rollout; r.Window != nil || slices.Contains(events(acts), EvWindowHeld) || r.Phases[0].Override != "" || len(consumed(acts)) != 0 {
		t.Fatalf("a settling phase was held: hold %+v events %v override %q consumed %v", r.Window, events(acts), r.Phases[0].Override, consumed(acts))
	}
	w.syncs(15, "r2", "dev-1", "dev-2")
	acts = w.step(t, 20) // dev done; staging held, the override lets it through
	if r := w.st.Rollout; r.Phase != 1 || len(r.Phases[1].Admitted) != 2 || !slices.Contains(consumed(acts), "override-window") {
		t.Fatalf("the override did not wait for staging: phase %d %+v consumed %v", r.Phase, r.Phases[1], consumed(acts))
	}
	if n := strings.Count(strings.Join(events(acts), ","), EvWindowHeld); n != 0 {
		t.Fatalf("WindowHeld %d times for phases the override let through: %v", n, events(acts))
	}
}

// TestAnOverrideEndsWithItsWindow: an override not used while its window held (the phase
// had nobody it could admit) does not outlive the window: the next time that window holds
// the phase, it holds.
func TestAnOverrideEndsWithItsWindow(t *testing.T) {
	phases := threePhases()
	phases[1].Approval, phases[1].Size.Gate = &spec.Approval{Required: 1}, true
	w := newWorld(phases...)
	w.plan.Windows = []spec.Window{win(t, "freeze", spec.WindowDeny, 15, 100, "")}
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10) // staging started, waits for its approval
	w.edit(map[string]string{"override-window": "freeze", "by": "alice"})
	w.step(t, 20) // the override is taken; the gate admits nobody
	if ph := w.st.Rollout.Phases[1]; ph.Override != "freeze" || len(ph.Admitted) != 0 {
		t.Fatalf("staging %+v", ph)
	}
	w.obs.Controls = nil
	w.step(t, 100) // the window ended
	if ph := w.st.Rollout.Phases[1]; ph.Override != "" {
		t.Fatalf("the override outlived its window: %+v", ph)
	}
	w.plan.Windows = []spec.Window{win(t, "freeze", spec.WindowDeny, 150, 1000, "")} // the freeze again
	w.edit(answer("approve", "alice", ""))
	w.step(t, 200)
	if r := w.st.Rollout; len(r.Phases[1].Admitted) != 0 || r.Window == nil {
		t.Fatalf("an old override let staging through the new freeze: %+v hold %+v", r.Phases[1], r.Window)
	}
}
