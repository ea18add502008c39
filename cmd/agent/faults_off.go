//go:build !cmpphase_faults

package main

import (
	"log/slog"
	"os"

	"github.com/cmp-phase/cmp-phase/internal/agent"
)

// faults is the production build's fault injection: none. CMP_PHASE_AGENT_FAULT works only
// in an agent built with -tags cmpphase_faults (see faults_on.go); here it is ignored, said
// once so a test that set it on the wrong binary is told why nothing crashes.
func faults(log *slog.Logger) agent.Faults {
	if v := os.Getenv(faultEnv); v != "" {
		log.Warn("fault injection ignored: this agent is built without -tags cmpphase_faults", "env", faultEnv, "value", v)
	}
	return agent.Faults{}
}
