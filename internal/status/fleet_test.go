package status

import (
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

func TestAFleetWideStopShowsAsSuch(t *testing.T) {
	st := &state.State{Generation: 3, Paused: &state.Pause{Reason: "incident 4711", By: "sre", Since: time.Date(2026, 11, 25, 5, 0, 0, 0, time.UTC), Fleet: true}}
	d := Outline("web", st)
	if d.Paused == nil || !d.Paused.Fleet {
		t.Fatalf("the document drops the fleet mark: %+v", d.Paused)
	}
	if txt := Text(d); !strings.Contains(txt, "paused (fleet-wide stop; resume-all lifts it) by sre since 2026-11-25T05:00:00Z: incident 4711") {
		t.Fatalf("text: %s", txt)
	}
}
