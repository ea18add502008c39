# Pinned versions of the real programs the harness builds (sourced by build-tools.sh;
# test/framework reads the same file so the two never disagree).
KUBE_VERSION=v1.36.1
KUBE_VERSION_MAJOR=1
KUBE_VERSION_MINOR=36
ETCD_VERSION=v3.6.16
ARGOCD_VERSION=v3.5.7
KUSTOMIZE_VERSION=v5.8.1
KWOK_VERSION=v0.8.0
