package status

import (
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

func TestTheWindowHoldIsShownWithItsNextOpening(t *testing.T) {
	since := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	opens := since.Add(3 * time.Hour)
	st := &state.State{Generation: 3, Rollout: &state.Rollout{Revision: "r2", Status: state.RolloutProgressing, Phase: 1,
		Phases: []state.PhaseState{{Name: "dev"}, {Name: "staging"}},
		Window: &state.WindowHold{Phase: "staging", Windows: []string{"freeze"}, Since: since, Opens: &opens}}}
	d := Outline("demo", st)
	if d.Window == nil || d.Window.Hold != "admissions" || !d.Window.NextOpening.Equal(opens) {
		t.Fatalf("window %+v", d.Window)
	}
	if s := Text(d); !strings.Contains(s, "window freeze") || !strings.Contains(s, "next opening 2026-11-25T12:00:00Z") {
		t.Fatalf("status key:\n%s", s)
	}
	st.Rollout.Status = state.RolloutStopped
	if d = Outline("demo", st); d.Window != nil {
		t.Fatalf("a stopped rollout shows a window: %+v", d.Window)
	}
}
