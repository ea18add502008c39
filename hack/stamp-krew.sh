#!/usr/bin/env bash
# Stamps the krew manifest of a release: plugins/cmp-phase.yaml with VERSION replaced by the
# tag and each platform's sha256 placeholder (SHA256_<OS>_<ARCH>) by the SHA-256 of the
# archive that platform's uri names, read from the directory holding the built archives
# (cmp-phase_<tag>_<os>_<arch>.tar.gz). Krew refuses a platform without its digest, so this
# fails when an archive is missing, a platform has no sha256 after its uri, or a placeholder
# is left. The manifest in git keeps its placeholders; the stamped one (OUT, by default
# DIR/cmp-phase.yaml) is the one published with the release and sent to krew-index.
#   hack/stamp-krew.sh v0.2.0 dist/ [dist/cmp-phase.yaml]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
v=${1:-} dir=${2:-}
if ! [[ $v =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || [ ! -d "$dir" ]; then
  echo "usage: hack/stamp-krew.sh vMAJOR.MINOR.PATCH ARCHIVE_DIR [OUT] (got '$v' '$dir')" >&2
  exit 2
fi
out=${3:-$dir/cmp-phase.yaml}

digest() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

stamped=$(mktemp)
trap 'rm -f "$stamped"' EXIT
echo "# krew plugin manifest of cmp-phase $v, stamped by hack/stamp-krew.sh from the release's archives." >"$stamped"
archive=""
while IFS= read -r line; do
  [[ $line =~ ^# ]] && continue # the header explains the placeholders, gone here
  line=${line//VERSION/$v}
  if [[ $line =~ ^[[:space:]]*uri:[[:space:]]*(.+)$ ]]; then
    if [ -n "$archive" ]; then echo "stamp-krew: the platform of $archive has no sha256 after its uri" >&2; exit 1; fi
    archive=${BASH_REMATCH[1]##*/}
  elif [[ $line =~ ^([[:space:]]*)sha256:[[:space:]] ]]; then
    if [ -z "$archive" ]; then echo "stamp-krew: a sha256 before its platform's uri: $line" >&2; exit 1; fi
    if [ ! -f "$dir/$archive" ]; then echo "stamp-krew: $dir/$archive is missing: build the release's archives first" >&2; exit 1; fi
    line="${BASH_REMATCH[1]}sha256: $(digest "$dir/$archive")"
    archive=""
  fi
  printf '%s\n' "$line" >>"$stamped"
done <"$root/plugins/cmp-phase.yaml"
if [ -n "$archive" ]; then echo "stamp-krew: the platform of $archive has no sha256 after its uri" >&2; exit 1; fi
if grep -n 'SHA256_\|VERSION' "$stamped" >&2; then echo "stamp-krew: placeholders left (above)" >&2; exit 1; fi
chmod 0644 "$stamped"
mv "$stamped" "$out"
trap - EXIT
echo "stamped $out for $v"
