package targets

import (
	"strings"
	"testing"
)

// TestEvaluationIsBounded: an expression that would allocate without bound is refused at
// compile time naming the fix (bound.go), or stopped by the memory budget with a one-line
// error, quickly.
func TestEvaluationIsBounded(t *testing.T) {
	for _, src := range []string{
		`len(repeat("a", 1000000000)) > 0`,
		`all(1..100000000, {# > 0})`,
		`len(map(1..10000, {map(1..10000, {#})})) > 0`,
		`len(map(1..999, 1..999)) > 0`, // compiles: each iteration's range is charged
	} {
		p, err := NewCache(1).Compile(src)
		if err != nil {
			if !strings.Contains(err.Error(), "(fix: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%s: want a one-line refusal naming the fix, got %v", src, err)
			}
			continue
		}
		if _, err := p.Eval(Subject{Name: "a"}); err == nil || !strings.Contains(err.Error(), "memory budget exceeded") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("%s: want a one-line budget error, got %v", src, err)
		}
	}
}

// FuzzCompileEval: any source compiles or is refused, and a compiled one evaluates to a
// boolean or an error — never a panic.
func FuzzCompileEval(f *testing.F) {
	for _, s := range []string{`labels.env == "prod"`, `name startsWith "prod-" && values.tier in ["a", "b"]`, `len(annotations) > 2`, `server matches "^https"`, `1 +`, `repeat("a", 10) == name`} {
		f.Add(s, "prod-1", "prod")
	}
	f.Fuzz(func(t *testing.T, src, name, env string) {
		p, err := NewCache(1).Compile(src)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 2*MaxExprLen {
				t.Fatalf("compile error is not one bounded line: %.200q", msg)
			}
			return
		}
		s := Subject{Name: name, Labels: map[string]string{"env": env}, Values: map[string]string{"tier": env}}
		got, err := p.Eval(s)
		again, err2 := p.Eval(s)
		if got != again || (err == nil) != (err2 == nil) {
			t.Fatalf("%q is not deterministic: %v %v, then %v %v", src, got, err, again, err2)
		}
		if err != nil && !strings.Contains(err.Error(), "evaluate ") {
			t.Fatalf("an evaluation error does not say what it evaluated: %v", err)
		}
	})
}
