package spec_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	_ "github.com/cmp-phase/cmp-phase/internal/hooks/all"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestRetryForBoundsARetriedHook: seed 004's Retry as written, retry until success, bounded
// here by time: retryFor is read with failurePolicy: retry, carried by the plan, and
// refused elsewhere or out of bounds, naming the field and the fix.
func TestRetryForBoundsARetriedHook(t *testing.T) {
	hookSpec := func(fields string) []byte {
		hook := "        preHooks:\n        - name: h\n          type: http\n          http: {url: 'https://x.example.com'}\n" + fields
		return []byte(strings.Replace(string(spec.SpecWith(`'true'`, "1")), "      - name: rest\n", hook+"      - name: rest\n", 1))
	}
	s, err := spec.Parse("spec.yaml", hookSpec("          failurePolicy: Retry\n          retryFor: 45m\n"), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Phases[0].PreHooks[0]
	if h.RetryFor != 45*time.Minute || h.FailurePolicy != spec.FailurePolicyRetry {
		t.Fatalf("%+v", h)
	}
	b, err := json.Marshal(h)
	var back spec.Hook
	if err != nil || json.Unmarshal(b, &back) != nil || back.RetryFor != h.RetryFor {
		t.Fatalf("the plan carries retryFor: %s %+v %v", b, back, err)
	}
	for fields, want := range map[string]string{
		"          retryFor: 45m\n":                                  "retryFor: applies only with failurePolicy: retry (fix: remove it, or set failurePolicy: retry)",
		"          failurePolicy: retry\n          retryFor: 0s\n":   "retryFor: must be positive and at most 24h",
		"          failurePolicy: retry\n          retryFor: 25h\n":  "retryFor: must be positive and at most 24h",
		"          failurePolicy: retry\n          retryFor: soon\n": "retryFor",
	} {
		_, err := spec.Parse("spec.yaml", hookSpec(fields), targets.NewCache(8))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "preHooks[0].retryFor") {
			t.Errorf("%q: %v", fields, err)
		}
	}
}
