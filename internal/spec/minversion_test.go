package spec

import (
	"strings"
	"testing"

	"golang.org/x/mod/semver"

	"github.com/cmp-phase/cmp-phase/internal/targets"
	"github.com/cmp-phase/cmp-phase/internal/version"
)

// withMinVersion is the base spec annotated with min-version v (a YAML scalar).
func withMinVersion(v string) []byte {
	return []byte(strings.Replace(string(specWith("'true'", "1")), "  name: demo\n",
		"  name: demo\n  annotations:\n    argocd.argoproj.io/min-version: "+v+"\n", 1))
}

// TestMinVersion: a spec needing a newer cmp-phase is refused naming both versions and
// the fix; an older or equal one, or none, is accepted; an invalid one is refused naming
// the field; a development build is held to its tree's release (version.Judged).
func TestMinVersion(t *testing.T) {
	defer func(old func() string) { running = old }(running)
	for _, c := range []struct {
		name, running, min, want string
	}{
		{"newer", "v1.2.0", `"v1.3.0"`, `spec.yaml:6: metadata.annotations.argocd.argoproj.io/min-version: the spec needs cmp-phase v1.3.0 or newer; this is v1.2.0 (fix: upgrade cmp-phase (the plugin sidecar and the agent) to v1.3.0 or newer)`},
		{"newer without a v", "v1.2.0", `"1.2.1"`, "needs cmp-phase v1.2.1 or newer; this is v1.2.0"},
		{"a pre-release of the next", "v1.2.0", "v1.3.0-rc.1", "needs cmp-phase v1.3.0-rc.1 or newer"},
		{"equal", "v1.2.0", `"1.2"`, ""},
		{"older", "v1.2.0", "v0.9.0", ""},
		{"invalid", "v1.2.0", "latest", `metadata.annotations.argocd.argoproj.io/min-version: invalid version "latest" (fix: write a semantic version such as "v1.2.0")`},
		{"invalid in a development build", "v0.1.0", `"1.2.3.4"`, `invalid version "1.2.3.4"`},
		{"not a string", "v1.2.0", "[1, 2]", "min-version: must be a string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			running = func() string { return c.running }
			_, err := Parse("spec.yaml", withMinVersion(c.min), targets.NewCache(8))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	running = func() string { return "v1.0.0" }
	if _, err := Parse("spec.yaml", specWith("'true'", "1"), targets.NewCache(8)); err != nil {
		t.Fatalf("no annotation, no requirement: %v", err)
	}
}

// TestADevelopmentBuildIsHeldToItsTreesRelease: this test binary is a development build (no
// release stamped); it refuses a spec needing a newer cmp-phase than version.Base and takes
// one needing Base itself.
func TestADevelopmentBuildIsHeldToItsTreesRelease(t *testing.T) {
	if version.Current() != "" {
		t.Skip("a stamped build")
	}
	next := semver.Major(version.Base) + ".99.0"
	if _, err := Parse("spec.yaml", withMinVersion(`"`+next+`"`), targets.NewCache(8)); err == nil || !strings.Contains(err.Error(), "this is "+version.Base) {
		t.Fatalf("a development build took a spec needing %s: %v", next, err)
	}
	if _, err := Parse("spec.yaml", withMinVersion(`"`+version.Base+`"`), targets.NewCache(8)); err != nil {
		t.Fatalf("a spec needing %s, this tree's release: %v", version.Base, err)
	}
}
