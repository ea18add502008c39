// Package control reads the steering keys a person writes into a rollout's state ConfigMap
// (kubectl edit / patch, or the CLI): pause (with reason and optional expiry), resume,
// approve, promote, jump (force), abort, rollback, skip, and who did it. Parsing and
// validation are pure; every invalid edit becomes a Problem a person can act on, never a
// guess. The engine (internal/rollout) applies the valid ones once. The keys themselves are
// part of the on-cluster contract (internal/contract).
package control
