// Package agent is the I/O side of the rollout: it reads the live child Applications and the
// cluster Secrets, feeds the pure engine (internal/rollout), writes the state ConfigMap and
// makes Argo CD re-render the parent. The pure translations are here too: a live Application
// into an engine Observation, cluster Secrets into the inventory, the re-render protocol.
//
// A failed reconcile has a kind (failure.go): transient, conflict, invalid input, or fail
// closed. One mapper, policyOf, turns it into when the rollout comes back, the Warning Event
// its parent gets (or none) and the level of the one line it is logged with.
package agent
