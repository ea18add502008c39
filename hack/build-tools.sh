#!/usr/bin/env bash
# Builds the real programs the tests and the demo run against, from Go modules, at pinned
# versions, into a git-ignored cache keyed by version. A second run builds nothing.
# Also installs the Debian packages the harness needs (redis-server, git, prometheus, chromium,
# nodejs and npm) when missing, and
# with --race what go test -race needs (cgo: gcc, libc6-dev) when it cannot build.
#
# Prints the cache directory on its last line of stdout; progress goes to stderr.
set -euo pipefail

race=false
case "${1:-}" in
  --race) race=true ;;
  "") ;;
  *) echo "usage: $0 [--race]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=hack/versions.sh
. "$root/hack/versions.sh"

cache=${CMP_PHASE_TOOLS_DIR:-$root/.cache/tools}
log() { printf 'build-tools: %s\n' "$*" >&2; }

# cgo_links: go's C compiler compiles and links a program, as the race detector needs.
cgo_links() {
  local cc
  read -r -a cc <<<"$(go env CC)"
  printf 'int main(void) { return 0; }\n' | "${cc[@]}" -x c -o /dev/null - >/dev/null 2>&1
}

install_debs() {
  local missing=()
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v git >/dev/null 2>&1 || missing+=(git)
  # test/freshinstall runs the getting-started page's download commands as written
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  # metric checks' e2e tests query a real Prometheus (test/framework's env.Prometheus)
  command -v prometheus >/dev/null 2>&1 || missing+=(prometheus)
  # the UI extension's browser test (TestUIExtension) drives headless Chromium and builds
  # the extension with npm from ui/package-lock.json
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
  if $race && ! cgo_links; then missing+=(gcc libc6-dev); fi
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  local out
  out=$(mktemp)
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
      --no-install-recommends "${missing[@]}"; } >"$out" 2>&1; then
    cat "$out" >&2
    rm -f "$out"
    return 1
  fi
  rm -f "$out"
  if [[ " ${missing[*]} " == *" prometheus "* ]]; then stop_prometheus_service "$sudo"; fi
}

# stop_prometheus_service: Debian's package starts its service where it can (systemd);
# the tests start their own Prometheus, so the package's is stopped and disabled.
stop_prometheus_service() {
  local sudo=$1
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    $sudo systemctl disable --now prometheus >/dev/null 2>&1 || true
  elif command -v invoke-rc.d >/dev/null 2>&1; then
    $sudo invoke-rc.d prometheus stop >/dev/null 2>&1 || true
  fi
}

# build <dir> <wrapper-module> <binary> <package> [ldflags] [toolchain]: toolchain, when set,
# is the GOTOOLCHAIN of this build only (Argo CD v3.6 needs Go 1.27; the go command fetches it
# from the module proxy).
build() {
  local dir=$1 mod=$2 bin=$3 pkg=$4 ldflags=${5:-} toolchain=${6:-${GOTOOLCHAIN:-}}
  if [ -x "$dir/$bin" ]; then return 0; fi
  mkdir -p "$dir"
  log "building $bin ($pkg) into $dir"
  local start=$SECONDS
  (cd "$root/hack/tools/$mod" && GOTOOLCHAIN=$toolchain CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $ldflags" -o "$dir/$bin.tmp" "$pkg")
  mv "$dir/$bin.tmp" "$dir/$bin"
  log "built $bin in $((SECONDS - start))s"
}

install_debs

kube_dir=$cache/kubernetes-$KUBE_VERSION
kube_ld="-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=${KUBE_VERSION_MAJOR} -X k8s.io/component-base/version.gitMinor=${KUBE_VERSION_MINOR} -X k8s.io/client-go/pkg/version.gitVersion=$KUBE_VERSION"
build "$kube_dir" kube kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$kube_ld"
build "$kube_dir" kube kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager "$kube_ld"
build "$kube_dir" kube kubectl k8s.io/kubernetes/cmd/kubectl "$kube_ld"
# Pods of Job hooks need a scheduler and a node: kube-scheduler and kwok's fake node.
build "$kube_dir" kube kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler "$kube_ld"

kwok_dir=$cache/kwok-$KWOK_VERSION
build "$kwok_dir" kwok kwok sigs.k8s.io/kwok/cmd/kwok
# kwok's own stages that make a node Ready and a pod Running and gone when deleted; the
# harness adds the ones that end a Job's pod.
if [ ! -f "$kwok_dir/stages/pod-ready.yaml" ]; then
  src=$(cd "$root/hack/tools/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  mkdir -p "$kwok_dir/stages"
  install -m 0644 "$src/kustomize/stage/node/fast/node-initialize.yaml" "$src/kustomize/stage/pod/fast/pod-ready.yaml" \
    "$src/kustomize/stage/pod/fast/pod-delete.yaml" "$kwok_dir/stages/"
fi

etcd_dir=$cache/etcd-$ETCD_VERSION
build "$etcd_dir" etcd etcd go.etcd.io/etcd/server/v3 "-X go.etcd.io/etcd/api/v3/version.GitSHA=cmp-phase"

# Argo CD's repo-server runs kustomize for kustomize sources; the harness puts it on its PATH.
kustomize_dir=$cache/kustomize-$KUSTOMIZE_VERSION
build "$kustomize_dir" kustomize kustomize sigs.k8s.io/kustomize/kustomize/v5

# build_argocd <version> <wrapper-module> [toolchain]: Argo CD's multi-call binary at that
# version, with the files of its module the harness reads, into argocd-<version>.
build_argocd() {
  local version=$1 mod=$2 toolchain=${3:-${GOTOOLCHAIN:-}}
  local dir=$cache/argocd-$version src
  build "$dir" "$mod" argocd github.com/argoproj/argo-cd/v3/cmd "-X github.com/argoproj/argo-cd/v3/common.version=${version#v} -X github.com/argoproj/argo-cd/v3/common.gitCommit=module-build" "$toolchain"
  # The repo-server runs git through Argo CD's verify wrapper; it must be on PATH. The stock
  # argocd-cm of this version (its defaults: ignoreResourceUpdates, exclusions): the harness
  # starts from it, as an install of Argo CD does.
  if [ ! -x "$dir/git-verify-wrapper.sh" ] || [ ! -f "$dir/argocd-cm.yaml" ] || [ ! -f "$dir/install.yaml" ]; then
    src=$(cd "$root/hack/tools/$mod" && GOTOOLCHAIN=$toolchain go list -m -f '{{.Dir}}' github.com/argoproj/argo-cd/v3)
    install -m 0755 "$src/hack/git-verify-wrapper.sh" "$dir/git-verify-wrapper.sh"
    mkdir -p "$dir/crds"
    install -m 0644 "$src"/manifests/crds/*-crd.yaml "$dir/crds/"
    install -m 0644 "$src/manifests/base/config/argocd-cm.yaml" "$dir/argocd-cm.yaml"
    # Argo CD's own install, which manifests/install names by URL: test/freshinstall applies
    # the documented install with this copy in its place (no test reaches GitHub).
    install -m 0644 "$src/manifests/install.yaml" "$dir/install.yaml"
  fi
  local name
  for name in argocd-application-controller argocd-repo-server argocd-server argocd-cmp-server argocd-applicationset-controller; do
    ln -sf argocd "$dir/$name"
  done
}

build_argocd "$ARGOCD_VERSION" argocd "$ARGOCD_GO_TOOLCHAIN"
# The previous supported minor, for test/compat's smoke test (≈ 6 minutes once, then cached).
build_argocd "$ARGOCD_PREVIOUS_VERSION" argocd-previous

echo "$cache"
