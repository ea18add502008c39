#!/usr/bin/env bash
# Cuts a release's artifacts into OUT_DIR, with no Docker and nothing fetched but Go modules
# and the UI's npm packages (ui/package-lock.json): the multi-platform image (an OCI layout in
# OUT_DIR/oci, both binaries, static, uid 999, the machine's CA bundle), the CLI archives, the
# UI extension tarball, the stamped krew manifest, the manifests naming the image by digest,
# an SPDX SBOM and the SHA-256 sums (docs/release.md). VERSION must already say the release
# (hack/stamp-version.sh) and the tree must be clean, so the tag, the manifests and the
# binaries agree.
#   hack/release.sh [--allow-dirty] v0.2.0 dist/v0.2.0
#   go run ./hack/release push -out dist/v0.2.0        # then: the image to the registry
# Environment: CMP_PHASE_RELEASE_IMAGE (the repository the manifests name; default
# ghcr.io/cmp-phase/cmp-phase), CMP_PHASE_RELEASE_PLATFORMS=host (a partial release for
# trying it out: the image and the CLI for this machine's linux/ARCH only, no krew manifest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dirty=false
if [ "${1:-}" = --allow-dirty ]; then dirty=true; shift; fi
v=${1:-} out=${2:-}
if ! [[ $v =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || [ -z "$out" ]; then
  echo "usage: hack/release.sh [--allow-dirty] vMAJOR.MINOR.PATCH OUT_DIR (got '$v' '$out')" >&2
  exit 2
fi
cd "$root"
if [ "$(cat VERSION)" != "$v" ]; then
  echo "release: VERSION says $(cat VERSION), not $v (fix: hack/stamp-version.sh $v, commit, tag, then release)" >&2
  exit 1
fi
if [ -n "$(git status --porcelain)" ] && [ "$dirty" != true ]; then
  echo "release: the tree has uncommitted changes, which the release would ship (fix: commit or stash them; --allow-dirty to try it out)" >&2
  exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The UI extension, from a copy of ui/'s sources (npm ci from the lock file): a release never
# depends on, nor disturbs, a node_modules or dist/ of the working tree.
ui=$(mktemp -d)
trap 'rm -rf "$ui"' EXIT
tar -C ui --exclude=./node_modules --exclude=./dist -cf - . | tar -C "$ui" -xf -
(cd "$ui" && npm ci --no-audit --no-fund --loglevel=error && npm run --silent typecheck && npm run --silent build) >&2

platforms=()
if [ "${CMP_PHASE_RELEASE_PLATFORMS:-}" = host ]; then
  host=linux/$(go env GOARCH)
  platforms=(-image-platforms "$host" -cli-platforms "$host" -partial)
elif [ -n "${CMP_PHASE_RELEASE_PLATFORMS:-}" ]; then
  echo "release: CMP_PHASE_RELEASE_PLATFORMS is '${CMP_PHASE_RELEASE_PLATFORMS}' (fix: host, or unset for every platform)" >&2
  exit 2
fi
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)} \
  go run ./hack/release build -version "$v" -out "$out" -ui-js "$ui/dist/extension-cmp-phase.js" \
  -revision "$(git rev-parse HEAD)" -image "${CMP_PHASE_RELEASE_IMAGE:-ghcr.io/cmp-phase/cmp-phase}" "${platforms[@]}"
