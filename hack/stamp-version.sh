#!/usr/bin/env bash
# Stamps a release version into everything in git that names the image, so one ref pins both
# the manifests and the image: VERSION, manifests/base's images: newTag, the image of both
# containers in manifests/helm/values.yaml, and the cmp-phase chart's version and appVersion.
# test/install fails when they disagree or one ships :latest. Then commit, tag, and cut the
# release with hack/release.sh (docs/release.md), which builds the image with this version and
# writes copies of the manifests naming it by digest.
#   hack/stamp-version.sh v0.2.0
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
v=${1:-}
if ! [[ $v =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "usage: hack/stamp-version.sh vMAJOR.MINOR.PATCH (got '$v')" >&2
  exit 2
fi
cd "$root"
echo "$v" > VERSION
sed -i -E "s|^(  newTag: ).*|\1$v|" manifests/base/kustomization.yaml
sed -i -E "s|(image: ghcr.io/cmp-phase/cmp-phase:).*|\1$v|" manifests/helm/values.yaml
sed -i -E "s|^const Base = \".*\"|const Base = \"$v\"|" internal/version/base.go
sed -i -E -e "s|^version: .*|version: ${v#v}|" -e "s|^appVersion: .*|appVersion: $v|" manifests/helm/cmp-phase/Chart.yaml
echo "stamped $v; commit and tag it, then: hack/release.sh $v dist/$v"
