package rollout

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/control"
)

// stopFleet sets (or, with nil, lifts) the fleet-wide stop on top of the person's edits.
func (w *world) stopFleet(f *control.FleetStop) {
	if w.obs.Controls == nil {
		w.edit(map[string]string{})
	}
	w.obs.Controls.Fleet = f
}

func TestTheFleetWideStopHoldsARolloutAndLiftingItReleasesIt(t *testing.T) {
	w := newWorld(threePhases()...)
	toSoak(t, w)
	w.stopFleet(&control.FleetStop{Reason: "incident 4711", By: "sre-oncall"})
	acts := w.step(t, 30)
	p := w.st.Paused
	if p == nil || !p.Fleet || p.By != "sre-oncall" || p.Reason != "incident 4711" || !slices.Contains(events(acts), EvPaused) {
		t.Fatalf("paused %+v, events %v", p, events(acts))
	}
	if h := w.st.Rollout.History; len(h) == 0 || !strings.Contains(h[len(h)-1].Message, "fleet-wide stop of sre-oncall: incident 4711") {
		t.Fatalf("the stop is not in the history: %+v", h)
	}
	if acts = w.step(t, 200); len(events(acts)) != 0 || w.st.Rollout.Phase != 1 {
		t.Fatalf("the stop did not hold the rollout past its soak quietly: phase %d events %v", w.st.Rollout.Phase, events(acts))
	}
	w.stopFleet(nil)
	acts = w.step(t, 210)
	if w.st.Paused != nil || w.st.Rollout.Phase != 2 || !slices.Contains(events(acts), EvResumed) {
		t.Fatalf("lifted: paused %+v phase %d events %v", w.st.Paused, w.st.Rollout.Phase, events(acts))
	}
}

func TestAPersonsPauseOutlivesTheFleetWideStop(t *testing.T) {
	w := newWorld(threePhases()...)
	toSoak(t, w)
	w.edit(map[string]string{"pause": "my own reasons", "by": "alice"})
	w.stopFleet(&control.FleetStop{Reason: "incident"})
	w.step(t, 30)
	if p := w.st.Paused; p == nil || p.Fleet || p.By != "alice" {
		t.Fatalf("the fleet stop replaced alice's pause: %+v", p)
	}
	w.edit(map[string]string{"pause": "my own reasons", "by": "alice"})
	w.step(t, 200)
	if p := w.st.Paused; p == nil || p.Fleet || w.st.Rollout.Phase != 1 {
		t.Fatalf("lifting the fleet stop ended alice's pause: %+v phase %d", p, w.st.Rollout.Phase)
	}
}

func TestResumeCannotEndTheFleetWideStop(t *testing.T) {
	w := newWorld(threePhases()...)
	toSoak(t, w)
	w.stopFleet(&control.FleetStop{Reason: "incident", By: "sre"})
	w.step(t, 30)
	w.edit(map[string]string{"resume": "", "by": "bob"})
	w.stopFleet(&control.FleetStop{Reason: "incident", By: "sre"})
	acts := w.step(t, 200)
	if p := w.st.Paused; p == nil || !p.Fleet || w.st.Rollout.Phase != 1 {
		t.Fatalf("resume ended the fleet stop: %+v", p)
	}
	if !slices.Contains(events(acts), EvControlRejected) || !strings.Contains(w.st.Rejected["resume"], "resume-all") {
		t.Fatalf("the refused resume is not reported: %v %v", events(acts), w.st.Rejected)
	}
}

// TestAPersonsPauseEndingDuringTheStopGivesWayToIt: a pause-until that runs out, or a
// resume of a person's own pause, while the fleet-wide stop is on leaves the rollout held
// by the stop on the same pass (not one pass of progress); a rollback asked for during the
// stop goes on.
func TestAPersonsPauseEndingDuringTheStopGivesWayToIt(t *testing.T) {
	w := newWorld(threePhases()...)
	toSoak(t, w)
	w.edit(map[string]string{"pause": "lunch", "pause-until": t0.Add(100 * time.Second).Format(time.RFC3339), "by": "alice"})
	w.stopFleet(&control.FleetStop{Reason: "incident", By: "sre"})
	w.step(t, 30)
	w.edit(map[string]string{"pause": "lunch", "pause-until": t0.Add(100 * time.Second).Format(time.RFC3339), "by": "alice"})
	w.stopFleet(&control.FleetStop{Reason: "incident", By: "sre"})
	w.step(t, 200)
	if p := w.st.Paused; p == nil || !p.Fleet || w.st.Rollout.Phase != 1 {
		t.Fatalf("the run-out pause let the rollout move: paused %+v phase %d", p, w.st.Rollout.Phase)
	}
	w.edit(map[string]string{"rollback": "bad release", "by": "alice"})
	w.stopFleet(&control.FleetStop{Reason: "incident", By: "sre"})
	w.step(t, 210)
	w.edit(map[string]string{"by": "alice"})
	w.stopFleet(&control.FleetStop{Reason: "incident", By: "sre"})
	w.step(t, 220)
	if w.st.Paused != nil || w.st.Rollout.Status != StatusRollingBack {
		t.Fatalf("a rollback during the stop is held: paused %+v status %s", w.st.Paused, w.st.Rollout.Status)
	}
}
