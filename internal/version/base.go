package version

// Base is the release this source tree is, the same as the repository's VERSION file
// (hack/stamp-version.sh writes both; test/install fails when they differ). A development
// build — no release stamped, as the tests and a local `go build` make — judges a spec's
// argocd.argoproj.io/min-version as this release would, instead of accepting any.
const Base = "v0.1.0"

// Judged is the version a spec's min-version is held against: Current, or Base in a
// development build.
func Judged() string {
	if v := Current(); v != "" {
		return v
	}
	return Base
}
