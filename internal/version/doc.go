// Package version says which cmp-phase this binary is: the release a build was stamped
// with (-ldflags "-X github.com/cmp-phase/cmp-phase/internal/version.stamped=v1.2.3", as
// hack/release.sh does), else the module version `go install ...@v1.2.3` records, else
// none: a development build. The spec parser compares a spec's
// argocd.argoproj.io/min-version annotation with it.
package version
