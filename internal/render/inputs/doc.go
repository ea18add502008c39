// Package inputs reads what a render depends on besides the spec — the rollout state, the
// cluster inventory and the plugin environment — from files (local use, golden tests, the
// stock argocd-cmp-server) or from ConfigMap objects (the informers of cmp-phase serve).
package inputs
