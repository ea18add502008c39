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
