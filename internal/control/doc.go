// Package control reads a person's steering of a rollout from its state ConfigMap (kubectl
// edit / patch, or the CLI): pause (with reason and optional expiry), resume, approve,
// promote, jump (force), abort, rollback, skip, confirm-removal, and who did it and why;
// and the fleet ConfigMap's stop-all and change windows.
//
// Parse reads and validates the keys, purely: every invalid edit becomes a Problem a person
// can act on, never a guess, and the engine (internal/rollout) applies the valid ones once.
// It does no I/O: the verbs that write these keys are internal/steer's. The keys themselves
// are part of the on-cluster contract (internal/contract).
package control
