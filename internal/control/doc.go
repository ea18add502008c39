// Package control is a person's steering of a rollout through its state ConfigMap (kubectl
// edit / patch, or the CLI): pause (with reason and optional expiry), resume, approve,
// promote, jump (force), abort, rollback, skip, confirm-removal, and who did it and why.
//
// Parse reads and validates the keys, purely: every invalid edit becomes a Problem a person
// can act on, never a guess, and the engine (internal/rollout) applies the valid ones once.
// The verbs (Rollout's methods, over the state ConfigMap's read-modify-write store) make
// each edit, validated by Parse exactly as the agent will read it: written once, on top of
// any concurrent change, and a refused edit writes nothing. The keys themselves are part of
// the on-cluster contract (internal/contract).
package control
