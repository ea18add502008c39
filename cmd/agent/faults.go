package main

// faultEnv names the test-only crash switch; only a cmpphase_faults build acts on it.
const faultEnv = "CMP_PHASE_AGENT_FAULT"
