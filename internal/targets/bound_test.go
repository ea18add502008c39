package targets

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// evalBudget is what compiling and evaluating one expression may allocate: a fraction of
// the sidecar's 512 MiB, whatever the expression.
const evalBudget = 64 << 20

// doubling is `let a1 = name + name; let a2 = a1 + a1; …; len(aN)`: no builtin at all.
func doubling(n int) string {
	var b strings.Builder
	prev := "name"
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "let a%d = %s + %s; ", i, prev, prev)
		prev = fmt.Sprintf("a%d", i)
	}
	return b.String() + "len(" + prev + ")"
}

// nested is fn(fn(…fn(arg)…)), depth deep.
func nested(fn, arg string, depth int) string {
	return "len(" + strings.Repeat(fn+"(", depth) + arg + strings.Repeat(")", depth) + ") > 0"
}

// manyValues is a values map of n entries.
func manyValues(n int) map[string]string {
	m := make(map[string]string, n)
	for i := range n {
		m[fmt.Sprintf("k%d", i)] = "v"
	}
	return m
}

// big is a 3,900-byte literal: with it an expression is near its 4,096-byte limit.
var big = strings.Repeat("x", 3900)

// evilExpressions are expressions that would allocate without bound, by name.
var evilExpressions = map[string]string{
	"repeat 1e6":         `len(repeat("` + big + `", 1000000))`,
	"repeat 20000":       `len(repeat("` + big + `", 20000))`,
	"join of a map":      `len(join(map(1..99999, "` + big[:3000] + `"), ""))`,
	"range of 1e9":       `len(map(1..1000000000, #))`,
	"sum of a range":     `sum(1..1000000000)`,
	"computed range":     `len(1..(len(name) * 100000000))`,
	"let doubling":       doubling(24),
	"reduce doubling":    `len(reduce(1..24, #acc + #acc, name))`,
	"replace amplifies":  `len(replace(replace(name, "", "` + big[:1000] + `"), "", "` + big[:1000] + `"))`,
	"nested loops":       `count(1..999, count(1..999, upper(name + name) != "") > 0)`,
	"nested split loops": `count(split(annotations.big, ""), count(split(annotations.big, ""), # == "y") > 0)`,
	// issue 47: growth past the old deny-list, and growth through allowed builtins
	// (refused at load, or stopped at evaluation by the byte budget).
	"nested toJSON":      nested("toJSON", `annotations.quotes`, 40),
	"nested toBase64":    nested("toBase64", `annotations.big`, 60),
	"nested string":      `len(string(split(string(split(string(split(annotations.big, "")), "")), "")))`,
	"concat in a loop":   `len(map(split(annotations.big, ""), annotations.big + annotations.big + annotations.big))`,
	"upper in a loop":    `count(split(annotations.big, ""), upper(annotations.big) != lower(annotations.big))`,
	"keys in a loop":     `count(1..999, len(keys(values)) > 0)`,
	"split in a loop":    `count(1..999, len(split(annotations.big, "")) > 0)`,
	"a chain of concats": `len(` + strings.TrimSuffix(strings.Repeat("annotations.b + ", 200), " + ") + `)`,
	"a computed pattern": `count(1..999, name matches annotations.big)`,
	"sort of a split":    `len(sort(split(annotations.big, "")))`,
	"concat of splits":   `len(concat(split(annotations.big, ""), split(annotations.big, "")))`,
	"toPairs":            `len(toPairs(values))`,
	"duration":           `len(string(duration(name)))`,
	"a charged fn":       `len($cat($env, name, name))`,
}

// boundAtLoad are the evilExpressions CheckBounded refuses on its own; the others pass it
// and are stopped at evaluation by the Meter.
var boundAtLoad = map[string]bool{"repeat 1e6": true, "repeat 20000": true, "join of a map": true, "range of 1e9": true, "sum of a range": true,
	"computed range": true, "let doubling": true, "reduce doubling": true, "replace amplifies": true, "nested loops": true, "nested split loops": true,
	"nested toJSON": true, "nested toBase64": true, "nested string": true, "a computed pattern": true, "sort of a split": true,
	"concat of splits": true, "toPairs": true, "duration": true, "a charged fn": true}

// TestExpressionsCannotAllocateWithoutBound: a 4 KB expression ran once per cluster with
// no bound on what it builds (`repeat("<3,900 bytes>", 1e6)` allocated 3.7 GB). Each
// expression here, as a target, a key and a metric-style condition, must be refused at
// compile time or fail at evaluation with an error, allocating less than evalBudget.
func TestExpressionsCannotAllocateWithoutBound(t *testing.T) {
	s := Subject{Name: "prod-eu-1", Labels: map[string]string{"env": "prod"}, Values: manyValues(20000),
		Annotations: map[string]string{"big": strings.Repeat("x", 4000), "quotes": strings.Repeat(`"\\`, 1000), "b": strings.Repeat("y", 4000)}}
	for name, e := range evilExpressions {
		t.Run(name, func(t *testing.T) {
			measure := func(what string, f func() error) {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				err := f()
				runtime.ReadMemStats(&after)
				if delta := after.TotalAlloc - before.TotalAlloc; delta > evalBudget {
					t.Errorf("%s: allocated %d MiB, over %d MiB", what, delta>>20, evalBudget>>20)
				}
				if err == nil {
					t.Errorf("%s: accepted and evaluated without an error", what)
				} else if !strings.Contains(err.Error(), "(fix: ") && !strings.Contains(err.Error(), "memory budget exceeded") {
					t.Errorf("%s: error %q names no fix", what, err)
				}
			}
			measure("target", func() error {
				p, err := (*Cache)(nil).Compile(e + " >= 0")
				if err != nil {
					return err
				}
				_, err = p.Eval(s)
				return err
			})
			measure("key", func() error {
				p, err := (*Cache)(nil).CompileKey(e)
				if err != nil {
					return err
				}
				_, err = p.Eval(s)
				return err
			})
			if boundAtLoad[name] {
				measure("bounded", func() error { return CheckBounded(e) })
			}
		})
	}
}

// TestTheMeterKeepsTypeErrorsAtLoad: `+` of a string and a number is refused when the
// expression compiles, as expr-lang refuses it, not only when it runs.
func TestTheMeterKeepsTypeErrorsAtLoad(t *testing.T) {
	for _, src := range []string{`name + 1 == "x"`, `1 + labels.env == "x"`} {
		if _, err := (*Cache)(nil).Compile(src); err == nil || !strings.Contains(err.Error(), "invalid operation") {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// TestBoundedExpressionsStillWork: what cluster selection needs is left alone.
func TestBoundedExpressionsStillWork(t *testing.T) {
	s := Subject{Name: "prod-eu-1", Labels: map[string]string{"env": "prod", "tier": "2"}}
	for _, e := range []string{
		`labels.env == "prod" && name startsWith "prod-"`,
		`"eu" in split(name, "-")`,
		`int(labels.tier) in 1..3`,
		`any(keys(labels), # startsWith "ti")`,
		`count(split(name, "-"), len(#) > 1) == 2`,
		`all(1..999, # > 0)`,
		`lower(upper(name)) + "-x" == "prod-eu-1-x"`,
		`name matches "^prod-[a-z]+-[0-9]$"`,
	} {
		p, err := (*Cache)(nil).Compile(e)
		if err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		if ok, err := p.Eval(s); err != nil || !ok {
			t.Errorf("%s: %v, %v", e, ok, err)
		}
	}
}
