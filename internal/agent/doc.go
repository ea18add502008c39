// Package agent is the I/O side of the rollout: it reads the live child Applications and the
// cluster Secrets, feeds the pure engine (internal/rollout), writes the state ConfigMap and
// makes Argo CD re-render the parent. This file set starts with the pure translations: a
// live Application into an engine Observation, and cluster Secrets into the inventory.
package agent
