package spec

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestRolloutNameIsALabelAndNamesConfigMaps: metadata.name becomes the ConfigMaps
// <name>-state and <name>-plan and the label value cmp-phase.io/rollout=<name>, so a name
// that is not a DNS-1123 label (too long, upper case, dots, underscores) is refused where
// it is written, not by the API server later.
func TestRolloutNameIsALabelAndNamesConfigMaps(t *testing.T) {
	spec := func(name string) []byte {
		return []byte(strings.Replace(string(specWith("true", "1")), "name: demo", "name: '"+name+"'", 1))
	}
	for _, name := range []string{strings.Repeat("a", 64), "Demo", "demo.prod", "demo_prod", "-demo", "demo-", ""} {
		_, err := Parse("spec.yaml", spec(name), targets.NewCache(4))
		if err == nil {
			t.Errorf("metadata.name %q accepted", name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "spec.yaml:4: metadata.name:") || !strings.Contains(msg, "(fix: ") || !strings.Contains(msg, "DNS-1123 label") {
			t.Errorf("metadata.name %q: error %q does not name the file, line, field, rule and fix", name, msg)
		}
	}
	for _, name := range []string{strings.Repeat("a", 63), "demo", "payments-eu-1", "1st"} {
		if _, err := Parse("spec.yaml", spec(name), targets.NewCache(4)); err != nil {
			t.Errorf("metadata.name %q refused: %v", name, err)
		}
	}
}
