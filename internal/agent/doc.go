// Package agent is the I/O side of the rollout: it reads the live child Applications and the
// cluster Secrets, feeds the pure engine (internal/rollout), writes the state ConfigMap and
// makes Argo CD re-render the parent. The pure translations are packages of their own: a
// live Application into an engine Observation (internal/agent/observe), cluster Secrets into the
// inventory (internal/clustersecrets), the re-render protocol (internal/agent/rerender).
//
// The agent runs hooks of every kind without naming one (internal/hooks/all names them):
// it gives the runner its clusters (hooks.Clusters: its own client and namespace, Argo
// CD's API, and the cluster Secrets' names from its trimmed cache, clustersecrets.go),
// which a kind reaching managed clusters (internal/hooks/jobhook) builds its clients from;
// it renders the child of a per-cluster run whose kind reads it (hooks.ReadsChild: its
// project and namespace at the rollout's revision, child.go). The runs of this process —
// in flight, ended until the ledger has them, what they left (hooks.Cleanup) removed once
// it has — are one internal/agent/hookrun.Runs the agent holds (hookruns.go).
//
// A failed reconcile has a kind (internal/agent/failure): transient, conflict, invalid input, or
// fail closed. One mapper, failure.PolicyOf, turns it into when the rollout comes back, the
// Warning Event its parent gets (or none) and the level of the one line it is logged with.
package agent
