package metrichook

import (
	"strings"
	"testing"
)

// TestConditionsAreBounded: a metric condition is an expression like a target's and runs
// in the agent, so what its builtins may build is bounded the same way (targets.CheckBounded):
// refused when compiled, at parse time, naming the fix.
func TestConditionsAreBounded(t *testing.T) {
	for _, src := range []string{
		`len(repeat("` + strings.Repeat("x", 3900) + `", 1000000)) > 0`,
		`len(join(map(1..99999, "x"), "")) > 0`,
		`reduce(result, #acc + #, 0) > 1`,
		`let a = result; len(a) > 0`,
		`all(result, all(result, # > 0))`,
	} {
		_, err := CompileCondition(src)
		if err == nil || !strings.Contains(err.Error(), "(fix: ") {
			t.Errorf("%.60s: want a refusal naming the fix, got %v", src, err)
		}
	}
	if _, err := CompileCondition(`sum(result) > 1 && all(result, # > 0)`); err != nil {
		t.Error(err)
	}
}
