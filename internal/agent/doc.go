// Package agent is the I/O side of the rollout: it reads the live child Applications and the
// cluster Secrets, feeds the pure engine (internal/rollout), writes the state ConfigMap and
// makes Argo CD re-render the parent. The pure translations are here too: a live Application
// into an engine Observation, cluster Secrets into the inventory, the re-render protocol.
//
// Job hooks reach their clusters through jobClients (jobclients.go): the control cluster
// for a per-phase Job; for a per-cluster one, the child's AppProject must permit it
// (jobproject.go) and the client is built for that call from the one cluster Secret, read
// by a direct GET (clustercreds.go, with Argo CD's ClusterConfig; exec credentials
// refused); the child's project and namespace come from its render at the rollout's
// revision (jobtarget.go).
//
// A failed reconcile has a kind (failure.go): transient, conflict, invalid input, or fail
// closed. One mapper, policyOf, turns it into when the rollout comes back, the Warning Event
// its parent gets (or none) and the level of the one line it is logged with.
package agent
