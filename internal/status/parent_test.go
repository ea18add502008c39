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
		more            map[string]string // cmp-phase.io/paused, check-failed
	}{
		"admitting": {func(*state.State) {}, "Progressing", "sync", nil},
		"soaking": {func(s *state.State) {
			s.Rollout.Phases[1].Admitted, s.Rollout.Phases[1].Status = []string{"p1", "p2"}, state.PhaseSoaking
		}, "Progressing", "soak", nil},
		"an approval gate": {func(s *state.State) {
			s.Rollout.Phases[1].Approval = &state.ApprovalGate{Required: 2}
		}, "Progressing", "approval", nil},
		"a window": {func(s *state.State) {
			s.Rollout.Window = &state.WindowHold{Phase: "prod", Windows: []string{"freeze"}}
		}, "Progressing", "window", nil},
		"paused": {func(s *state.State) {
			s.Paused = &state.Pause{Reason: "incident", Since: time.Date(2026, 11, 22, 11, 0, 0, 0, time.FixedZone("CET", 3600))}
		}, "Progressing", "person", map[string]string{contract.ParentPaused: "2026-11-22T10:00:00Z"}},
		"paused, then stopped": {func(s *state.State) {
			s.Paused, s.Rollout.Status = &state.Pause{Reason: "incident"}, state.RolloutStopped
		}, "Stopped", "", nil},
		"a check failed": {func(s *state.State) {
			s.Rollout.Status = state.RolloutStopped
			s.Rollout.Phases[1].Hooks = map[string]state.HookRun{"post/notify": {Kind: "post", Name: "notify", Status: state.HookFailed},
				"check/smoke": {Kind: "check", Name: "smoke", Status: state.HookSucceeded}, "check/z-rate": {Kind: "check", Name: "z-rate", Status: state.HookFailed}}
		}, "Stopped", "", map[string]string{contract.ParentCheckFailed: "z-rate"}},
		"a per-cluster check errored": {func(s *state.State) {
			s.Rollout.Phases[1].Hooks = map[string]state.HookRun{"check/health/p1": {Kind: "check", Name: "health", Cluster: "p1", Status: state.HookErrored}}
		}, "Progressing", "sync", map[string]string{contract.ParentCheckFailed: "health on p1"}},
		"a check inconclusive": {func(s *state.State) {
			s.Rollout.Phases[1].Hooks = map[string]state.HookRun{"check/error-rate": {Kind: "check", Name: "error-rate", Status: state.HookInconclusive}}
		}, "Progressing", "sync", nil},
		"a check running": {func(s *state.State) {
			s.Rollout.Phases[1].Admitted = []string{"p1", "p2"}
			s.Rollout.Phases[1].Clusters["p2"] = state.ClusterState{Status: state.ClusterDone}
			s.Rollout.Phases[1].Hooks = map[string]state.HookRun{"check/error-rate": {Status: state.HookRunning}}
		}, "Progressing", "check", nil},
		"stopped": {func(s *state.State) { s.Rollout.Status = state.RolloutStopped }, "Stopped", "", nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			st := rolling()
			c.change(st)
			got := Parent("web", st)
			want := map[string]string{contract.ParentStatus: c.status, contract.ParentPhase: "prod", contract.ParentWaitingFor: c.waiting,
				contract.ParentRolloutRevision: "r2", contract.ParentRolloutID: "r2@2026-11-22T10:00:00Z", contract.ParentAdmitted: got[contract.ParentAdmitted], contract.ParentPhaseSucceeded: "dev", contract.ParentRollout: "web",
				contract.ParentPaused: c.more[contract.ParentPaused], contract.ParentCheckFailed: c.more[contract.ParentCheckFailed]}
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
