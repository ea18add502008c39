package targets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// What an expression may allocate. An expression runs once per cluster in the sidecar
// (512 MiB) and the agent, so what it allocates must not grow with its arguments: a 4 KB
// `repeat("<3,900 bytes>", 1e6)` allocated 3.7 GB, and nested toJSON/toBase64 4.5 GB.
// MaxExprLen and MaxExprNodes bound the source; these bound what it builds:
//   - only the builtins of AllowedBuiltins may be called (an allow-list: a builtin expr-lang
//     adds later is refused until it is judged); none of them builds more than its
//     arguments, and those that build anything are charged to the run's Meter;
//   - let is refused (a variable reused is a value doubled without a node per copy);
//   - a range's bounds are integer literals at most MaxRange elements apart;
//   - a predicate (all, any, filter, map, …) does not run inside another, so no loop
//     multiplies another's iterations;
//   - `matches` takes a string literal (compiled once, at load, not per evaluation);
//   - the VM's own memory budget (ranges, arrays, maps it builds) is MaxEvalMemory
//     elements per evaluation, and the bytes of new strings and arrays MaxEvalBytes.
const (
	MaxRange      = 1000
	MaxEvalMemory = 1 << 16
)

// allowedBuiltins are the expr-lang builtins an expression may call, and what each
// builds. Every other builtin is refused at load (toJSON, toBase64, string, repeat, join,
// replace, reduce, sort, concat, now, date, …): they grow their result beyond their
// arguments, read the time, or are not needed to choose or order clusters.
var allowedBuiltins = map[string]string{
	"all": "a boolean", "any": "a boolean", "none": "a boolean", "one": "a boolean",
	"count": "a number", "find": "an element", "findIndex": "a number",
	"findLast": "an element", "findLastIndex": "a number",
	"filter": "at most its collection (counted by the VM)", "map": "one element per element (counted by the VM)",
	"len": "a number", "abs": "a number", "ceil": "a number", "floor": "a number", "round": "a number",
	"int": "a number", "float": "a number", "max": "a number", "min": "a number", "sum": "a number", "mean": "a number",
	"trim": "a part of its argument", "trimPrefix": "a part of its argument", "trimSuffix": "a part of its argument",
	"hasPrefix": "a boolean", "hasSuffix": "a boolean", "indexOf": "a number", "lastIndexOf": "a number",
	"upper": "a copy (charged)", "lower": "a copy (charged)", "split": "its parts (charged)",
	"first": "an element", "last": "an element", "get": "an element",
	"keys": "a list of the keys (charged)", "values": "a list of the values (charged)",
}

// timeBuiltins read or make times: an expression's answer must not change with the time.
var timeBuiltins = map[string]bool{"now": true, "date": true, "timezone": true, "duration": true}

// AllowedBuiltins are the builtins an expression may call, sorted (docs/spec.md lists
// them).
func AllowedBuiltins() []string {
	names := make([]string, 0, len(allowedBuiltins))
	for n := range allowedBuiltins {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// boundFix is the fix every refusal names.
var boundFix = "(fix: write it with comparisons, in, startsWith, endsWith, contains, matches and the builtins " +
	strings.Join(AllowedBuiltins(), ", ") + ", with one level of all, any, filter, count, over the names the expression sees)"

// CheckBounded refuses an expression that could allocate more than its inputs allow (the
// rules above), before it is compiled: expr's optimiser folds constant calls at compile
// time, so compiling is already running it.
func CheckBounded(src string) error {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil // the compiler reports it, with its position
	}
	g := &guard{}
	ast.Walk(&tree.Node, g)
	if g.err != nil {
		return fmt.Errorf("%w %s", g.err, boundFix)
	}
	return nil
}

type guard struct{ err error }

func (g *guard) Visit(node *ast.Node) {
	if g.err != nil {
		return
	}
	switch n := (*node).(type) {
	case *ast.BuiltinNode:
		if timeBuiltins[n.Name] {
			g.err = fmt.Errorf("%s() is not allowed in an expression: it reads the time", n.Name)
		} else if _, ok := allowedBuiltins[n.Name]; !ok {
			g.err = fmt.Errorf("%s() is not allowed in an expression: only the builtins listed below are, whose results are no larger than their arguments", n.Name)
		}
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && strings.HasPrefix(id.Value, "$") {
			g.err = fmt.Errorf("%s() is not a function an expression may call", id.Value)
		}
	case *ast.VariableDeclaratorNode:
		g.err = fmt.Errorf("let is not allowed in an expression: a variable can double at each declaration")
	case *ast.BinaryNode:
		g.err = binaryBound(n)
	case *ast.PredicateNode:
		inner := &predicateFinder{}
		ast.Walk(&n.Node, inner)
		if inner.found {
			g.err = fmt.Errorf("a predicate (all, any, filter, map, …) is not allowed inside another: the iterations multiply")
		}
	}
}

// binaryBound refuses a range whose bounds are not literals MaxRange apart, and a
// `matches` whose pattern is not a literal (it would be compiled at every evaluation).
func binaryBound(n *ast.BinaryNode) error {
	switch n.Operator {
	case "..":
		lo, okLo := intLiteral(n.Left)
		hi, okHi := intLiteral(n.Right)
		if !okLo || !okHi {
			return fmt.Errorf("a range's bounds must be integer literals")
		} else if hi-lo >= MaxRange {
			return fmt.Errorf("the range %d..%d has more than %d elements", lo, hi, MaxRange)
		}
	case "matches":
		if _, ok := n.Right.(*ast.StringNode); !ok {
			return fmt.Errorf("matches takes a string literal as its pattern, not a computed one")
		}
	}
	return nil
}

type predicateFinder struct{ found bool }

func (f *predicateFinder) Visit(node *ast.Node) {
	if _, ok := (*node).(*ast.PredicateNode); ok {
		f.found = true
	}
}

func intLiteral(n ast.Node) (int, bool) {
	switch n := n.(type) {
	case *ast.IntegerNode:
		return n.Value, true
	case *ast.UnaryNode:
		if v, ok := intLiteral(n.Node); ok && n.Operator == "-" {
			return -v, true
		}
	}
	return 0, false
}

// Run evaluates a program within MaxEvalMemory (every compiled expression runs by it);
// its environment must carry a fresh Meter (NewMeter), which bounds the bytes it builds.
func Run(p *vm.Program, e any) (any, error) {
	m := vm.VM{MemoryBudget: MaxEvalMemory}
	return m.Run(p, e)
}
