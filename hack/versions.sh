# Pinned versions of the real programs the harness builds (sourced by build-tools.sh;
# test/framework reads the same file so the two never disagree).
KUBE_VERSION=v1.36.1
KUBE_VERSION_MAJOR=1
KUBE_VERSION_MINOR=36
ETCD_VERSION=v3.6.16
# The current Argo CD release: every suite (e2e, faults, UI, notifications, bench) runs it.
# v3.6 needs Go 1.27: build-tools.sh builds it with GOTOOLCHAIN=$ARGOCD_GO_TOOLCHAIN (the go
# command fetches that toolchain from the module proxy); the product itself stays on Go 1.26.
ARGOCD_VERSION=v3.6.2
ARGOCD_GO_TOOLCHAIN=go1.27.3
# The previous minor at its newest served patch: test/compat's smoke test (render + one phased
# rollout) runs on it. Supported: v3.5 and v3.6 (docs/install.md#supported-versions). Not v3.4:
# its gitops-engine (where sync and health live) is the directory ./gitops-engine of argo-cd's
# repository at v3.4.x, under the module path github.com/argoproj/argo-cd/gitops-engine, and
# the module proxy serves that path at one version only, v3.5's (tried 2026-12-07:
# v0.7.1-0.20250908182407-97ad5b59a627, the version v3.4.14's go.mod requires, answers 403 "not
# available"); a v3.4 built on v3.5's gitops-engine is a build no user runs.
ARGOCD_PREVIOUS_VERSION=v3.5.8
KUSTOMIZE_VERSION=v5.8.1
KWOK_VERSION=v0.8.0
