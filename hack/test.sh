#!/usr/bin/env bash
# Runs every test: builds (or reuses) the real kube-apiserver, etcd and Argo CD, then the Go
# tests, unit (with the race detector) and end-to-end, verbosely so the test names and the
# final count show. The end-to-end, fault and bench suites build only with -tags e2e, so a
# plain go test ./... runs the unit tests alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# --race: also installs gcc and libc6-dev when go test -race cannot build (it needs cgo).
cache=$(./hack/build-tools.sh --race | tail -n 1)
export CMP_PHASE_TOOLS_DIR="$cache"

# Each go test below runs with -json through hack/testsummary: it prints the output as -v
# would and ends with each failed test's own lines, so the verdict is at the end of the run
# (where CI shows it), not buried above the logs the e2e stack dumps when a test fails.
mkdir -p .cache/bin
go build -o .cache/bin/testsummary ./hack/testsummary
summary=.cache/bin/testsummary

status=0
# The unit packages (everything untagged) first, under the race detector.
unit=$(go list ./...)
# shellcheck disable=SC2086
CGO_ENABLED=1 go test -count=1 -json -race -timeout 30m $unit 2>&1 | $summary || status=$?
# The Helm values and chart under Helm's own merge, loader and engine: a module of its own
# (test/helm/doc.go says why), so go list ./... above leaves it out.
(cd test/helm && go test -count=1 -json -timeout 10m ./... 2>&1) | $summary || status=$?
# The end-to-end packages (those only -tags e2e builds, but the fault and compat suites), without -race:
# on 2 cores they are CPU-bound. -parallel 6: the e2e rollouts mostly wait on Argo CD, so
# they run side by side; with eight at once (33 rollouts, a real Prometheus and Job pods) one
# application controller on two cores left some waiting past their 6-minute limits.
e2e=$(comm -23 <(go list -tags e2e ./... | sort) <(echo "$unit" | sort) | grep -v -e '/test/faults$' -e '/test/compat$' -e '/test/freshinstall$' -e '/test/release$')
# shellcheck disable=SC2086
go test -tags e2e -count=1 -json -parallel 6 -timeout 60m $e2e 2>&1 | $summary || status=$?
# A release cut by hack/release.sh (both platforms of one image, the CLI archives), pushed
# to an in-process registry and checked; alone, as its builds take the 2 cores.
go test -tags e2e -count=1 -json -timeout 20m ./test/release 2>&1 | $summary || status=$?
# The documented install on a fresh API server, its sidecar and agent run from the rendered
# manifests (they listen on the ports the manifests name, so alone), and the uninstall.
go test -tags e2e -count=1 -json -timeout 15m ./test/freshinstall 2>&1 | $summary || status=$?
# The fault-injection suite, short form, on a stack of its own once the others are done
# (CMP_PHASE_FAULTS=long go test -tags e2e -v ./test/faults runs the long form).
go test -tags e2e -count=1 -json -timeout 25m ./test/faults 2>&1 | $summary || status=$?
# The smoke test on the previous supported Argo CD minor (hack/versions.sh ARGOCD_PREVIOUS_VERSION):
# a render and one phased rollout on a stack of its own, alone on the 2 cores like the others.
go test -tags e2e -count=1 -json -timeout 15m ./test/compat 2>&1 | $summary || status=$?

# Nothing the tests started may outlive them.
if left=$(pgrep -af "$cache/" | grep -v pgrep); then
  echo "processes left running after the tests:" >&2
  echo "$left" >&2
  status=1
fi
# env.Prometheus runs Debian's prometheus (outside the cache) with its TSDB in an e2e temp dir.
if left=$(pgrep -af -- "--storage.tsdb.path=.*cmp-phase-e2e-" | grep -v pgrep); then
  echo "prometheus left running after the tests:" >&2
  echo "$left" >&2
  status=1
fi
exit $status
