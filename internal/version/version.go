package version

import (
	"runtime/debug"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// stamped is set at link time (-X); empty in a development build.
var stamped string

// Current is this binary's version, canonical semver with a leading v ("v1.2.3"), or ""
// for a development build (no release stamped: a pseudo-version or a modified checkout
// counts as none).
func Current() string {
	if v := Canonical(stamped); v != "" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		return released(bi.Main.Version)
	}
	return ""
}

// released is v when it names a release: valid semver, not a pseudo-version, not +dirty.
func released(v string) string {
	if module.IsPseudoVersion(v) || strings.Contains(v, "+dirty") {
		return ""
	}
	return Canonical(v)
}

// Canonical is v as canonical semver ("1.2" → "v1.2.0"), or "" when v is not semver.
func Canonical(v string) string {
	v = strings.TrimSpace(v)
	if v != "" && !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	return semver.Canonical(v)
}
