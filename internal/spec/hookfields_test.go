package spec_test

import (
	"strings"
	"testing"

	_ "github.com/cmp-phase/cmp-phase/internal/hooks/all"
	"github.com/cmp-phase/cmp-phase/internal/hooks/httphook"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// The tests of what spec does with every kind's hook (placeholders, a block of another
// kind), told with http hooks: the package's external tests, as only they may register
// the kinds (internal/hooks/all).

func TestAHookRunsPerClusterOnlyWhenTemplatedWithTheCluster(t *testing.T) {
	for url, want := range map[string]bool{
		"https://{{name}}.example.com/health":               true,
		"https://x/{{ metadata.labels.region }}":            true,
		"https://x/?t={{.secrets.hook.token}}":              false,
		"https://x/{{ .appset.name }}":                      false,
		"https://x/{{.secrets.a.b}}/{{server}}":             true,
		"https://api.servicenow.com/api/now/table/change_r": false,
	} {
		if got := (spec.Hook{Block: &httphook.Block{URL: url}}).PerCluster(); got != want {
			t.Errorf("%s: PerCluster = %v", url, got)
		}
	}
}

// TestValidateAcceptsWhatAHookRunCanFillAndNothingElse: a cluster field is accepted in a
// pre-hook, check and post-hook alike (each then runs per cluster, seed 000's smoke-tests);
// a placeholder no run can fill is refused at load, naming the field and the fix.
func TestValidateAcceptsWhatAHookRunCanFillAndNothingElse(t *testing.T) {
	hookSpec := func(list, url string) []byte {
		hook := "        " + list + ":\n        - name: h\n          type: http\n          http: {url: '" + url + "'}\n"
		return []byte(strings.Replace(string(spec.SpecWith(`'true'`, "1")), "      - name: rest\n", hook+"      - name: rest\n", 1))
	}
	for _, list := range []string{"preHooks", "checks", "postHooks"} {
		for _, url := range []string{"https://{{name}}.example.com", "https://x/{{ metadata.labels.region }}/{{server}}/{{project}}",
			"https://x/{{.appset.name}}/{{ .phase.name }}/{{.appset.namespace}}?t={{.secrets.hook.token}}"} {
			if _, err := spec.Parse("spec.yaml", hookSpec(list, url), targets.NewCache(8)); err != nil {
				t.Errorf("%s %s: %v", list, url, err)
			}
		}
		for url, want := range map[string]string{
			"https://{{nope}}.example.com":   `unknown template variable "nope"`,
			"https://x/{{.values.env}}":      `unknown template variable ".values.env"`,
			"https://x/{{metadata.labels.}}": `unknown template variable "metadata.labels."`,
			"https://x/{{.secrets.only}}":    `secret reference ".secrets.only" must be`,
		} {
			_, err := spec.Parse("spec.yaml", hookSpec(list, url), targets.NewCache(8))
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "phases[0]."+list+"[0].http") || !strings.Contains(err.Error(), "fix: use .appset.name") {
				t.Errorf("%s %s: %v", list, url, err)
			}
		}
	}
}

// TestHookKindsAreValidatedAsBefore: the shared fields, a block of another kind. The
// kinds' timeout limits are the installation's now (TestLimits). The list of every kind
// an unknown or missing type is told is internal/hooks/all's to pin.
func TestHookKindsAreValidatedAsBefore(t *testing.T) {
	for hook, want := range map[string]string{
		"{name: a, type: http, http: {url: 'https://x'}, command: {command: [x]}}": `command: type http takes the http block, not command (fix: remove it or use type: command)`,
		"{name: a, type: http}":                                     `http: is required (fix: add http.url)`,
		"{name: a, type: command}":                                  `command: is required (fix: add command.command)`,
		"{name: a, type: http, http: {url: 'https://x', extra: 1}}": `http.extra: unknown field "extra"`,
	} {
		if _, err := spec.ParseWithCheck(hook); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", hook, err, want)
		}
	}
	s, err := spec.ParseWithCheck("{name: a, type: http, http: {url: 'https://x'}}")
	if err != nil || s.Phases[0].Checks[0].Block.(*httphook.Block).Method != "GET" {
		t.Fatalf("a check GETs unless it says otherwise: %v", err)
	}
}
