// Package steer makes a person's edits of a rollout's state ConfigMap and of the fleet
// ConfigMap: the verbs of the CLI (pause, resume, approve, reject, promote, jump, abort,
// rollback, skip, confirm-removal, override-window, stop-all, resume-all).
//
// Each edit is validated by control.Parse exactly as the agent will read it, written once
// through the state ConfigMap's read-modify-write store (internal/statestore), on top of any
// concurrent change; a refused edit writes nothing. This is the I/O half of steering, kept
// out of the engine's import graph: internal/rollout reads control's parsed keys only.
package steer
