#!/usr/bin/env bash
# The main job: build (or reuse) the real programs, start a local kube-apiserver + Argo CD with
# six loopback clusters and the cmp-phase sidecar, and show a phased rollout.
#   hack/demo.sh          run the rollout, then stop everything
#   hack/demo.sh --keep   leave the stack running until Ctrl-C
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
CMP_PHASE_TOOLS_DIR=$(./hack/build-tools.sh | tail -n 1)
export CMP_PHASE_TOOLS_DIR
exec go run ./test/demo "$@"
