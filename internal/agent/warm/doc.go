// Package warm is the agent's manifest warmer. A moved child's first comparison generates
// its manifests at the new commit before Argo CD starts its sync (it queues an operation
// only after the refresh): on the benchmark's machine ≈ 0.13 s of each member, one after
// another. The warmer asks argocd-server for the manifests of the children a rollout
// admits next, at the commit they will move to, while the current ones sync; the
// repo-server caches them under the key the move's comparison reads. It only reads:
// nothing moves earlier, nothing is applied. Which children, rendered how, is the agent's
// (its warmNext); Warmable says whether a move can be warmed at all.
package warm
