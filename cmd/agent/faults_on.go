//go:build cmpphase_faults

package main

import (
	"log/slog"
	"os"

	"github.com/cmp-phase/cmp-phase/internal/agent"
)

// faults reads the test-only fault injection, built only with -tags cmpphase_faults (the
// e2e suite's agent): CMP_PHASE_AGENT_FAULT=exit-after-write makes the process exit right
// after every state write, exit-before-write right before the next, exit-after-rerender
// right after asking a parent to re-render, exit-after-move right after moving a child.
// The crash-resume tests use it; nothing else should.
func faults(log *slog.Logger) agent.Faults {
	exit := func(where string) func(string, int64) {
		return func(rollout string, gen int64) {
			log.Warn("fault injected: exiting", "where", where, "rollout", rollout, "generation", gen)
			os.Exit(3)
		}
	}
	switch os.Getenv(faultEnv) {
	case "exit-after-write":
		return agent.Faults{AfterWrite: exit("after write")}
	case "exit-before-write":
		return agent.Faults{BeforeWrite: exit("before write")}
	case "exit-after-rerender":
		return agent.Faults{AfterRerender: exit("after asking for a re-render")}
	case "exit-after-move":
		return agent.Faults{AfterMove: func(rollout, child string) {
			log.Warn("fault injected: exiting", "where", "after moving a child", "rollout", rollout, "child", child)
			os.Exit(3)
		}}
	}
	return agent.Faults{}
}
