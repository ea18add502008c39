package main

import (
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

func TestWaitEndsOnATerminalRolloutOnly(t *testing.T) {
	cases := map[state.RolloutStatus]struct {
		code  int
		ended bool
	}{
		state.RolloutProgressing: {0, false},
		state.RolloutRollingBack: {0, false},
		state.RolloutCompleted:   {exitOK, true},
		state.RolloutStopped:     {exitFailed, true},
		state.RolloutRolledBack:  {exitFailed, true},
		state.RolloutAbandoned:   {exitFailed, true},
	}
	for status, want := range cases {
		code, ended := ending(&state.State{Rollout: &state.Rollout{Status: status}})
		if code != want.code || ended != want.ended {
			t.Errorf("%s: exit %d ended %v, want %d %v", status, code, ended, want.code, want.ended)
		}
	}
	if code, ended := ending(&state.State{}); code != exitOK || !ended {
		t.Error("no rollout: the deployed revision is everywhere: exit 0")
	}
}
