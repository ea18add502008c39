package targets

import (
	"fmt"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// What an expression may allocate. An expression runs once per cluster in the sidecar
// (512 MiB) and the agent, so what it allocates must not grow with its arguments: a 4 KB
// `repeat("<3,900 bytes>", 1e6)` allocated 3.7 GB. MaxExprLen and MaxExprNodes bound the
// source; these bound what it builds:
//   - builtins whose result grows with a count or a separator (repeat, join, replace) and
//     reduce (an accumulator: a string doubled each step) are refused, and so is let (a
//     variable doubled by each declaration: let a = name + name; let b = a + a; …);
//   - a range's bounds are integer literals at most MaxRange elements apart;
//   - a predicate (all, any, filter, map, …) does not run inside another, so no loop
//     multiplies another's iterations;
//   - the VM's own memory budget (ranges, arrays, maps, sorts it builds) is MaxEvalMemory
//     elements per evaluation.
//
// What is left builds values no larger than its inputs (the cluster's names, labels,
// annotations and values, and the source's literals) times the nodes that combine them.
const (
	MaxRange      = 1000
	MaxEvalMemory = 1 << 16
)

// refusedBuiltins are the builtins an expression may not call, and why.
var refusedBuiltins = map[string]string{
	"repeat":  "its result is its argument times a count",
	"join":    "its result repeats the separator once per element",
	"replace": "its result repeats the replacement once per match",
	"reduce":  "its accumulator can double at every step",
}

// boundFix is the fix every refusal names.
const boundFix = "(fix: write it with comparisons, in, startsWith, endsWith, contains, matches, split, lower, upper, len and one level of all, any, filter, count, over the names the expression sees)"

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
		if why, ok := refusedBuiltins[n.Name]; ok {
			g.err = fmt.Errorf("%s() is not allowed in an expression: %s, without a bound", n.Name, why)
		}
	case *ast.VariableDeclaratorNode:
		g.err = fmt.Errorf("let is not allowed in an expression: a variable can double at each declaration")
	case *ast.BinaryNode:
		if n.Operator == ".." {
			lo, okLo := intLiteral(n.Left)
			hi, okHi := intLiteral(n.Right)
			if !okLo || !okHi {
				g.err = fmt.Errorf("a range's bounds must be integer literals")
			} else if hi-lo >= MaxRange {
				g.err = fmt.Errorf("the range %d..%d has more than %d elements", lo, hi, MaxRange)
			}
		}
	case *ast.PredicateNode:
		inner := &predicateFinder{}
		ast.Walk(&n.Node, inner)
		if inner.found {
			g.err = fmt.Errorf("a predicate (all, any, filter, map, …) is not allowed inside another: the iterations multiply")
		}
	}
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

// Run evaluates a program within MaxEvalMemory (every compiled expression runs by it).
func Run(p *vm.Program, e any) (any, error) {
	m := vm.VM{MemoryBudget: MaxEvalMemory}
	return m.Run(p, e)
}
