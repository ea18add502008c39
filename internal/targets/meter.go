package targets

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm/runtime"
)

// MaxEvalBytes is what one evaluation may build in new strings and arrays: the VM's own
// budget (MaxEvalMemory) counts the elements of ranges, literals, map and filter, but
// not the bytes of a string `+` makes, nor what a builtin returns. Every allowed
// operation that builds something new from its arguments (`+` of strings, upper, lower,
// split, keys, values) is charged here before it allocates, so an evaluation allocates at
// most a small multiple of MaxEvalBytes whatever the expression (upper and lower may write
// up to 4 bytes per byte charged: an invalid byte becomes U+FFFD).
const MaxEvalBytes = 1 << 20

// errOverBudget is the evaluation error of an expression that built too much.
var errOverBudget = fmt.Errorf("memory budget exceeded: the expression builds over %d bytes of strings (fix: compare the cluster's fields instead of building from them)", MaxEvalBytes)

// A Meter is one evaluation's byte budget. Every environment an expression runs in embeds
// one, tagged `expr:"-"` (expressions cannot see it), made fresh by NewMeter for each run;
// the charged operations find it through `$env`.
type Meter struct{ left *int }

// NewMeter is a budget of MaxEvalBytes for one evaluation.
func NewMeter() Meter {
	n := MaxEvalBytes
	return Meter{left: &n}
}

func (m Meter) meter() Meter { return m }

// metered is an environment that carries a Meter (by embedding it).
type metered interface{ meter() Meter }

// charge takes n bytes from the budget of the environment env, or fails.
func charge(env any, n int) error {
	e, ok := env.(metered)
	if !ok || e.meter().left == nil {
		return errors.New("expression environment has no meter (a bug: build it with targets.NewMeter)")
	}
	left := e.meter().left
	if n > *left {
		*left = 0
		return errOverBudget
	}
	*left -= n
	return nil
}

// cost is what building from v allocates: a string's bytes, 16 bytes per element of an
// array or map (the element itself is shared, not copied).
func cost(v any) int {
	if s, ok := v.(string); ok {
		return len(s)
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return 16 * rv.Len()
	}
	return 0
}

// Names of the charged functions the patch calls. Each starts with `$`, so none can be an
// env field; CheckBounded refuses them written in a source.
const (
	fnCat   = "$cat"
	fnPass  = "$pass"
	fnSplit = "$split"
)

// metered builtins are the allowed builtins whose result is built from their argument:
// the patch charges the argument's cost before the builtin runs.
var chargedBuiltins = map[string]bool{"upper": true, "lower": true, "keys": true, "values": true}

// meterOptions are the options that charge every building operation of an expression to
// its run's Meter: the patch, and the functions it calls.
func meterOptions() []expr.Option {
	return []expr.Option{
		expr.Patch(meterPatch{}),
		expr.Function(fnCat, catFn, new(func(any, string, string) string), new(func(any, any, any) any)),
		expr.Function(fnPass, passFn, new(func(any, string) string), new(func(any, any) any)),
		expr.Function(fnSplit, splitFn, new(func(any, string, string) []string), new(func(any, string, string, int) []string)),
	}
}

// MeterOptions are meterOptions for expressions compiled outside this package (metric
// conditions); their environment must embed a Meter.
func MeterOptions() []expr.Option { return meterOptions() }

// catFn is `+`: numbers as the VM adds them, strings charged by the result's length first.
func catFn(args ...any) (any, error) {
	a, b := args[1], args[2]
	if sa, ok := a.(string); ok {
		if sb, ok := b.(string); ok {
			if err := charge(args[0], len(sa)+len(sb)); err != nil {
				return nil, err
			}
		}
	}
	return runtime.Add(a, b), nil
}

// passFn charges its argument's cost and returns it unchanged, for the builtin it is
// passed to (upper, lower, keys, values) to build from.
func passFn(args ...any) (any, error) {
	if err := charge(args[0], cost(args[1])); err != nil {
		return nil, err
	}
	return args[1], nil
}

// splitFn is split(s, sep[, n]), charged 16 bytes per piece before it splits.
func splitFn(args ...any) (any, error) {
	s, sep := args[1].(string), args[2].(string)
	n := -1
	if len(args) == 4 {
		n = args[3].(int)
	}
	pieces := strings.Count(s, sep) + 1
	if n >= 0 {
		pieces = min(pieces, n)
	}
	if err := charge(args[0], 16*pieces); err != nil {
		return nil, err
	}
	return strings.SplitN(s, sep, n), nil
}

// meterPatch rewrites, once the tree is type-checked, each building operation into its
// charged form: `a + b` (unless both are numbers) into $cat($env, a, b), split(s, sep)
// into $split($env, s, sep), and upper(x), lower(x), keys(x), values(x) into the builtin of
// $pass($env, x). Nothing is evaluated twice.
type meterPatch struct{}

func (meterPatch) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode:
		if n.Operator == "+" && mayBuild(n.Left, n.Right) {
			ast.Patch(node, call(fnCat, n.Left, n.Right))
		}
	case *ast.BuiltinNode:
		switch {
		case n.Name == "split":
			ast.Patch(node, call(fnSplit, n.Arguments...))
		case chargedBuiltins[n.Name] && len(n.Arguments) == 1:
			n.Arguments[0] = call(fnPass, n.Arguments[0])
		}
	}
}

// call is fn($env, args...).
func call(fn string, args ...ast.Node) *ast.CallNode {
	all := append([]ast.Node{&ast.IdentifierNode{Value: "$env"}}, args...)
	return &ast.CallNode{Callee: &ast.IdentifierNode{Value: fn}, Arguments: all}
}

// mayBuild reports whether `l + r` may build a string: both are strings, or either's type
// is not known until it runs. Numbers, and operands the checker refuses to add (string +
// int), are left to the VM and the checker, which reports the mismatch at load.
func mayBuild(l, r ast.Node) bool {
	lk, rk := kindOf(l), kindOf(r)
	return lk == reflect.String && rk == reflect.String || lk == reflect.Interface || rk == reflect.Interface
}

// kindOf is n's checked type's kind, Interface when it is not known.
func kindOf(n ast.Node) reflect.Kind {
	if t := n.Type(); t != nil {
		return t.Kind()
	}
	return reflect.Interface
}
