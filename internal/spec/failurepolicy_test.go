package spec

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// policySpec is the base spec with one hook of kind typ in list, its failurePolicy written
// as policy.
func policySpec(list, typ, policy string) []byte {
	block := "          http: {url: 'https://hooks.example.com/x'}\n"
	if typ == "command" {
		block = "          command: {command: [./check.sh]}\n"
	}
	hook := "        " + list + ":\n        - name: h\n          type: " + typ + "\n          failurePolicy: " + policy + "\n" + block
	return []byte(strings.Replace(string(specWith(`'true'`, "1")), "      - name: rest\n", hook+"      - name: rest\n", 1))
}

// TestFailurePolicySpellings: seed 000's and seed 004's spellings are accepted in any case,
// for every hook type and list, and read in their canonical form; a spelling other than the
// canonical one is noted (validate prints the note), the canonical one is not.
func TestFailurePolicySpellings(t *testing.T) {
	cases := []struct {
		written, want string
		noted         bool
	}{
		{"fail", "fail", false},
		{"ignore", "ignore", false},
		{"abort", "abort", false},
		{"retry", "retry", false},
		{"Abort", "abort", true},
		{"Retry", "retry", true},
		{"Ignore", "ignore", true},
		{"Continue", "ignore", true},
		{"continue", "ignore", true},
		{"FAIL", "fail", true},
		{"rEtRy", "retry", true},
	}
	for _, typ := range []string{"http", "command"} {
		for _, list := range []string{"preHooks", "checks", "postHooks"} {
			for _, c := range cases {
				s, err := Parse("spec.yaml", policySpec(list, typ, c.written), targets.NewCache(8))
				if err != nil {
					t.Fatalf("%s %s %s: %v", typ, list, c.written, err)
				}
				ph := s.Phases[0]
				h := map[string][]Hook{"preHooks": ph.PreHooks, "checks": ph.Checks, "postHooks": ph.PostHooks}[list][0]
				if h.FailurePolicy != c.want {
					t.Errorf("%s %s %s: read as %q, want %q", typ, list, c.written, h.FailurePolicy, c.want)
				}
				if noted := len(s.Notes) > 0; noted != c.noted {
					t.Errorf("%s %s %s: notes %v", typ, list, c.written, s.Notes)
				}
				if c.noted && !strings.Contains(s.Notes.Error(), "spec.yaml:") || c.noted && !strings.Contains(s.Notes.Error(), list+"[0].failurePolicy: \""+c.written+"\" is read as "+c.want) {
					t.Errorf("%s %s %s: note %q", typ, list, c.written, s.Notes.Error())
				}
			}
		}
	}
}

func TestAnUnknownFailurePolicyNamesTheFieldAndTheSpellings(t *testing.T) {
	for _, bad := range []string{"Rollback", "'fail '", "''", "stop"} {
		_, err := Parse("spec.yaml", policySpec("preHooks", "http", bad), targets.NewCache(8))
		if err == nil || !strings.Contains(err.Error(), "preHooks[0].failurePolicy: unknown value") || !strings.Contains(err.Error(), "Continue means ignore") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestCanonicalFailurePolicy(t *testing.T) {
	for in, want := range map[string]string{"ABORT": "abort", "Continue": "ignore", "retry": "retry", "Fail": "fail"} {
		if got, ok := CanonicalFailurePolicy(in); !ok || got != want {
			t.Errorf("%s: %q %v", in, got, ok)
		}
	}
	if _, ok := CanonicalFailurePolicy("rollback"); ok {
		t.Error("rollback is no failure policy")
	}
}
