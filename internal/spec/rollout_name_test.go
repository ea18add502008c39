package spec

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestRolloutNameIsALabelAndNamesConfigMaps: metadata.name becomes the ConfigMaps
// <name>-state and <name>-plan (DNS subdomains) and the label value
// cmp-phase.io/rollout=<name>, so a name that is not both (too long, upper case,
// underscores, a dot at either end) is refused where it is written, not by the API server
// later; a dotted name such as web.prod is both, and is accepted as it always rendered.
func TestRolloutNameIsALabelAndNamesConfigMaps(t *testing.T) {
	spec := func(name string) []byte {
		return []byte(strings.Replace(string(specWith("true", "1")), "name: demo", "name: '"+name+"'", 1))
	}
	for _, name := range []string{strings.Repeat("a", 64), "Demo", "demo_prod", "-demo", "demo-", ".demo", "demo.", "demo..prod", ""} {
		_, err := Parse("spec.yaml", spec(name), targets.NewCache(4))
		if err == nil {
			t.Errorf("metadata.name %q accepted", name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "spec.yaml:4: metadata.name:") || !strings.Contains(msg, "(fix: ") || !strings.Contains(msg, "cannot name a rollout (") {
			t.Errorf("metadata.name %q: error %q does not name the file, line, field, rule and fix", name, msg)
		}
	}
	for _, name := range []string{strings.Repeat("a", 63), "demo", "payments-eu-1", "1st", "web.prod", "a.b-c.d"} {
		if _, err := Parse("spec.yaml", spec(name), targets.NewCache(4)); err != nil {
			t.Errorf("metadata.name %q refused: %v", name, err)
		}
	}
}
