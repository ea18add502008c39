package targets

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
	lru "github.com/hashicorp/golang-lru/v2"
)

// Limits on expressions, checked before compiling.
const (
	MaxExprLen   = 4096
	MaxExprNodes = 1000
)

// Program is a compiled boolean expression.
type Program struct {
	src string
	p   *vm.Program
	key *KeyProgram // set instead of p for a key program (CompileKey) in the cache
}

// Cache compiles expressions once and keeps them by source.
type Cache struct {
	lru *lru.Cache[string, *Program]
}

// NewCache makes a cache of at most size compiled programs.
func NewCache(size int) *Cache {
	c, _ := lru.New[string, *Program](max(size, 1))
	return &Cache{lru: c}
}

// env is the shape expressions see; compiling against it catches unknown names and
// non-boolean results at load time.
type env struct {
	Name        string            `expr:"name"`
	Server      string            `expr:"server"`
	Labels      map[string]string `expr:"labels"`
	Annotations map[string]string `expr:"annotations"`
	Values      map[string]string `expr:"values"`
	Seed        string            `expr:"seed"`
	Meter       `expr:"-"`
}

// subjectEnv is s as an expression sees it, with a fresh Meter for one evaluation.
func subjectEnv(s Subject) env {
	return env{Name: s.Name, Server: s.Server, Labels: s.Labels, Annotations: s.Annotations, Values: s.Values, Seed: s.Seed, Meter: NewMeter()}
}

// Compile returns the compiled program for src, from the cache when it is there (a nil
// Cache compiles every time).
func (c *Cache) Compile(src string) (*Program, error) {
	if len(src) > MaxExprLen {
		return nil, fmt.Errorf("expression is %d bytes, over the limit of %d: split it or use matchExpressions", len(src), MaxExprLen)
	}
	if c != nil {
		if p, ok := c.lru.Get(src); ok && p.p != nil {
			return p, nil
		}
	}
	if err := CheckBounded(src); err != nil {
		return nil, err
	}
	p, err := expr.Compile(src, append(pure(), expr.AsBool())...)
	if err != nil {
		return nil, fmt.Errorf("%s", oneLine(err.Error()))
	}
	prog := &Program{src: src, p: p}
	if c != nil {
		c.lru.Add(src, prog)
	}
	return prog, nil
}

// pure are the options every target and key expression compiles with: the subject's
// fields only, bounded, and no now(): the renderer and the agent must put a cluster in the
// same phase at every render, so an expression's answer depends on the cluster alone.
func pure() []expr.Option {
	return append([]expr.Option{expr.Env(env{}), expr.MaxNodes(MaxExprNodes), expr.DisableBuiltin("now"),
		expr.Function(fnHash, hashFn, new(func(string) int))}, meterOptions()...)
}

// Eval runs the program against a subject.
func (p *Program) Eval(s Subject) (bool, error) {
	out, err := Run(p.p, subjectEnv(s))
	if err != nil {
		return false, fmt.Errorf("evaluate %q for %s: %s", p.src, s.Name, oneLine(err.Error()))
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("evaluate %q for %s: result is %T, not bool", p.src, s.Name, out)
	}
	return b, nil
}

// oneLine folds expr's multi-line error (message, source line, caret line) into one line,
// keeping a window of the source around the caret so the caret still points at the token.
func oneLine(msg string) string {
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	if len(lines) < 3 {
		return strings.Join(strings.Fields(msg), " ")
	}
	src := strings.TrimPrefix(lines[1], " | ")
	caret := strings.TrimPrefix(lines[2], " | ")
	col := strings.IndexByte(caret, '^')
	if col < 0 || col > len(src) {
		return lines[0]
	}
	start, end := max(0, col-40), min(len(src), col+20)
	return fmt.Sprintf("%s: `%s` with the caret at `%s`", lines[0], src[start:end], caret[start:col+1])
}

// Fix is the fix for an error of Target.Compile or Cache.Compile, for the spec's message.
func Fix(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "expected bool"):
		return `make expr a condition that is true for the clusters to select, e.g. labels.env == "prod"`
	case strings.Contains(msg, "unknown name now"), strings.Contains(msg, "it reads the time"):
		return "select by the cluster's fields only: a phase's clusters must not change with the time (use windows for time)"
	case strings.Contains(msg, "unknown name"):
		return "name only name, server, labels, annotations or values"
	case strings.Contains(msg, "empty target"):
		return "set clusters, values, matchExpressions or expr"
	case strings.Contains(msg, "over the limit"), strings.Contains(msg, "bound"):
		return "split the expression, or use matchExpressions"
	case strings.HasPrefix(msg, "expr:"):
		return "correct the expression (expr-lang syntax: https://expr-lang.org/docs/language-definition)"
	}
	return ""
}
