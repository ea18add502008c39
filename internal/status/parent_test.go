package status

import (
	"maps"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// rolling is a rollout of r2 at its second phase, prod, one of two members admitted.
func rolling() *state.State {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	return &state.State{Schema: state.Schema, Generation: 9, Deployed: "r1", Rollout: &state.Rollout{
		Revision: "r2", Status: state.RolloutProgressing, Phase: 1, StartedAt: t0,
		Phases: []state.PhaseState{
			{Name: "dev", Status: state.PhaseSucceeded, Members: []string{"d"}, Admitted: []string{"d"}},
			{Name: "prod", Status: state.PhaseAdmitting, Members: []string{"p1", "p2"}, Admitted: []string{"p1"},
				Clusters: map[string]state.ClusterState{"p1": {Status: state.ClusterDone}}},
		}}}
}

func TestParentAnnotationsSayWhereTheRolloutStands(t *testing.T) {
	cases := map[string]struct {
		change          func(*state.State)
		status, waiting string
	}{
		"admitting": {func(*state.State) {}, "Progressing", "sync"},
		"soaking": {func(s *state.State) {
			s.Rollout.Phases[1].Admitted, s.Rollout.Phases[1].Status = []string{"p1", "p2"}, state.PhaseSoaking
		}, "Progressing", "soak"},
		"an approval gate": {func(s *state.State) {
			s.Rollout.Phases[1].Approval = &state.ApprovalGate{Required: 2}
		}, "Progressing", "approval"},
		"a window": {func(s *state.State) {
			s.Rollout.Window = &state.WindowHold{Phase: "prod", Windows: []string{"freeze"}}
		}, "Progressing", "window"},
		"paused": {func(s *state.State) { s.Paused = &state.Pause{Reason: "incident"} }, "Progressing", "person"},
		"a check running": {func(s *state.State) {
			s.Rollout.Phases[1].Admitted = []string{"p1", "p2"}
			s.Rollout.Phases[1].Clusters["p2"] = state.ClusterState{Status: state.ClusterDone}
			s.Rollout.Phases[1].Hooks = map[string]state.HookRun{"check/error-rate": {Status: state.HookRunning}}
		}, "Progressing", "check"},
		"stopped": {func(s *state.State) { s.Rollout.Status = state.RolloutStopped }, "Stopped", ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			st := rolling()
			c.change(st)
			got := Parent("web", st)
			want := map[string]string{contract.ParentStatus: c.status, contract.ParentPhase: "prod", contract.ParentWaitingFor: c.waiting,
				contract.ParentRolloutRevision: "r2", contract.ParentRolloutID: "r2@2026-11-22T10:00:00Z", contract.ParentAdmitted: got[contract.ParentAdmitted], contract.ParentPhaseSucceeded: "dev", contract.ParentRollout: "web"}
			if !maps.Equal(got, want) {
				t.Fatalf("got %v\nwant %v", got, want)
			}
		})
	}
	if got := Parent("web", rolling())[contract.ParentAdmitted]; got != "1/2" {
		t.Fatalf("admitted %q", got)
	}
	idle := Parent("web", &state.State{Schema: state.Schema, Deployed: "r1"})
	if idle[contract.ParentStatus] != "Idle" || len(idle) != len(contract.ParentAnnotationKeys) || idle[contract.ParentPhase] != "" || idle[contract.ParentRollout] != "web" {
		t.Fatalf("idle: every key, empty but the status: %v", idle)
	}
}
