// Package argoapi is the agent's client of argocd-server's API. WarmManifests asks Argo CD
// for a child's manifests at the revision the rollout is about to move it to, so the
// repo-server has them cached when the move comes: the child's refresh then finds them
// instead of generating them on the rollout's critical path. Clusters lists Argo CD's
// clusters without their credentials, the inventory of an agent allowed no list or watch
// on Secrets. Both calls read; they change nothing in any cluster. The API token is read from a file on every call (so a rotated
// Secret is picked up) and never appears in an error.
package argoapi
