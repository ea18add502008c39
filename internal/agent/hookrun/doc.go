// Package hookrun is the hook runs of one agent process, beside the ledger the state
// records: the runs in flight, the results of ended runs until the written ledger has them
// (by idempotency key, Key, so a result is never taken for another rollout's run), what
// ended runs left to remove once it has (hooks.Cleanup: a job hook's Job), and each host's
// slots (--hooks-per-host). It carries one run out too: the hook templated with its
// variables (Vars) and secrets, its host's slot taken, its attempts run, the outcome turned
// into the ledger's status.
//
// The agent holds one Runs: it hands over each run the engine asks for (Begin, Go) with
// what the run needs of the agent's pass (the call, the variables, the child's
// destination: Dest), reads back what ended (Results, TrackResults) and, once a state is
// written, lets go of what its ledger recorded (Settle).
package hookrun
