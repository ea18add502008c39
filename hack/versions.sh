# Pinned versions of the real programs the harness builds (sourced by build-tools.sh;
# test/framework reads the same file so the two never disagree).
KUBE_VERSION=v1.36.1
KUBE_VERSION_MAJOR=1
KUBE_VERSION_MINOR=36
ETCD_VERSION=v3.6.16
ARGOCD_VERSION=v3.5.7
# The oldest Argo CD minor cmp-phase supports, at its latest patch: test/compat's smoke test
# (render + one phased rollout) runs on it. Supported: v3.4 and v3.5 (docs/install.md). Not
# v3.3: its release branch carries gitops-engine fixes in a directory of argo-cd's own
# repository under gitops-engine's old module path, which no served module holds (v3.3.19
# against the standalone gitops-engine its go.mod requires fails to compile). v3.6 needs Go 1.27.
ARGOCD_OLDEST_VERSION=v3.4.13
KUSTOMIZE_VERSION=v5.8.1
KWOK_VERSION=v0.8.0
