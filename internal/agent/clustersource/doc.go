// Package clustersource is where the agent reads Argo CD's clusters from, in one of two
// modes an installation picks (the agent's --inventory-from).
//   - secrets (the default): the cluster Secrets, through an informer (list and watch on
//     the Secrets of Argo CD's namespace; its cache keeps no credentials);
//   - argocd: argocd-server's cluster API with an Argo CD API token allowed `clusters,
//     get`, read every poll, which returns no credentials: the agent then needs no list
//     or watch on Secrets. Only a per-cluster job hook reads cluster Secrets, and only
//     then (it needs list on them to find the one of its cluster).
//
// Both give the same inventory (internal/clustersecrets), the same last check before a
// child is deleted (is its cluster registered, read live) and, for per-cluster job hooks,
// the cluster Secrets. The I/O is here; what is published is decided in clustersecrets.
package clustersource
