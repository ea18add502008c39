package rollout

import (
	"testing"
	"time"
)

// TestReasonsAloneAreWrittenAtMostEveryFewSeconds: as Argo CD syncs an admitted child, the
// reason it waits for changes several times; written each time, a three-phase rollout took
// some fifty state writes. A change of reasons alone waits until ReasonEvery after the last
// write (the agent comes back then); a status change is written at once, reasons included.
func TestReasonsAloneAreWrittenAtMostEveryFewSeconds(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0) // admits dev
	gen := w.st.Generation
	o := w.obs.Children["dev-1"]
	o.Revision, o.SpecCompared, o.SyncStatus = "r2", true, "OutOfSync" // moved, compared, not synced yet
	w.obs.Children["dev-1"] = o
	acts := w.step(t, 1)
	if w.st.Generation != gen {
		t.Fatalf("a new reason alone, 1s after a write, is not written: generation %d → %d", gen, w.st.Generation)
	}
	if !hasRequeueAt(acts, at(0).Add(ReasonEvery)) {
		t.Fatalf("the agent comes back when the reason may be written: %+v", acts)
	}
	w.step(t, 5)
	if w.st.Generation != gen+1 || w.st.Rollout.Phases[0].Clusters["dev-1"].Reason != "sync status OutOfSync" {
		t.Fatalf("ReasonEvery after the last write it is: generation %d, %+v", w.st.Generation, w.st.Rollout.Phases[0].Clusters["dev-1"])
	}
	w.syncs(5, "r2", "dev-1")
	w.step(t, 6)
	if w.st.Generation != gen+2 || w.st.Rollout.Phases[0].Clusters["dev-1"].Status != ClusterDone {
		t.Fatalf("a status change is written at once: generation %d, %+v", w.st.Generation, w.st.Rollout.Phases[0].Clusters["dev-1"])
	}
}

func hasRequeueAt(acts []Action, when time.Time) bool {
	for _, a := range acts {
		if a.Kind == ActRequeue && a.At.Equal(when) {
			return true
		}
	}
	return false
}
