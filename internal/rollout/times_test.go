package rollout

import (
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestTheStateKeepsWhenThingsEnded: each admitted child's settle time, each phase's end and
// the rollout's end are stamped on the pass that decides them, and kept after.
func TestTheStateKeepsWhenThingsEnded(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 7)
	dev := w.st.Rollout.Phases[0]
	if !dev.Clusters["dev-1"].SettledAt.Equal(at(7)) || !dev.Clusters["dev-2"].SettledAt.IsZero() || !dev.EndedAt.IsZero() {
		t.Fatalf("dev-1 settled at 7, dev-2 waits, dev runs: %+v", dev)
	}
	w.syncs(12, "r2", "dev-2")
	w.step(t, 20)
	r := w.st.Rollout
	if !r.Phases[0].EndedAt.Equal(at(20)) || !r.Phases[0].Clusters["dev-1"].SettledAt.Equal(at(7)) || !r.Phases[1].EndedAt.IsZero() {
		t.Fatalf("dev ended at 20, dev-1 keeps 7, staging runs: %+v", r.Phases[:2])
	}
	if !r.EndedAt.IsZero() {
		t.Fatal("a running rollout has no end")
	}
	w.syncs(25, "r2", "staging-1", "staging-2")
	w.step(t, 30)
	w.step(t, 100) // soak over
	w.syncs(105, "r2", "prod-1")
	w.step(t, 110)
	if r := w.st.Rollout; r.Status != StatusCompleted || !r.EndedAt.Equal(at(110)) || !r.Phases[2].EndedAt.Equal(at(110)) || !r.Phases[1].EndedAt.Equal(at(100)) {
		t.Fatalf("completed at 110, staging ended at 100: %+v", r)
	}
}

func TestEndTimes(t *testing.T) {
	now, before := at(50), at(10)
	tests := []struct {
		name                     string
		terminal, changed, known bool
		at, want                 time.Time
	}{
		{"still running", false, false, true, time.Time{}, time.Time{}},
		{"ends now", true, true, true, time.Time{}, now},
		{"ended before", true, false, true, before, before},
		{"another terminal status ends it again (Done, then Failed by a post-hook)", true, true, true, before, now},
		{"a change from an unknown status keeps the time it has", true, true, false, before, before},
		{"waits again: no end", false, true, true, before, time.Time{}},
		{"a state from before the times were kept stays without", true, false, true, time.Time{}, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := endTime(tc.terminal, tc.changed, tc.known, tc.at, now); !got.Equal(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestATimeAloneIsNoChange: a state from before the times were kept gets none stamped
// later, so upgrading writes nothing.
func TestATimeAloneIsNoChange(t *testing.T) {
	w := newWorld(envPhase("all", "dev", spec.Size{}, false))
	w.st.Rollout = &state.Rollout{Revision: "r2", Status: StatusCompleted, Phase: 1, StartedAt: at(0), Phases: []state.PhaseState{
		{Name: "all", Status: PhaseSucceeded, Clusters: map[string]state.ClusterState{"dev-1": {Status: ClusterDone, AdmittedAt: at(0)}}}}}
	cur := w.st.Clone()
	stampTimes(cur, w.st, at(99))
	if r := w.st.Rollout; !r.EndedAt.IsZero() || !r.Phases[0].EndedAt.IsZero() || !r.Phases[0].Clusters["dev-1"].SettledAt.IsZero() {
		t.Fatalf("stamped an old state: %+v", r)
	}
}
