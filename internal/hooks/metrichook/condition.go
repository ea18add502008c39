package metrichook

import (
	"fmt"
	"math"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Condition is a metric check's successCondition or failureCondition, compiled: an
// expr-lang expression over `result`, the query's value as a list of float64 (one per
// series of a vector, in label order; one for a scalar), with isNaN and isInf.
type Condition struct {
	src string
	p   *vm.Program
}

// conditionEnv is what a condition sees.
type conditionEnv struct {
	Result        []float64 `expr:"result"`
	targets.Meter `expr:"-"`
}

var conditionFuncs = []expr.Option{
	expr.Function("isNaN", func(args ...any) (any, error) { return math.IsNaN(args[0].(float64)), nil }, math.IsNaN),
	expr.Function("isInf", func(args ...any) (any, error) { return math.IsInf(args[0].(float64), 0), nil }, func(f float64) bool { return math.IsInf(f, 0) }),
}

// CompileCondition compiles a condition, refusing one over targets.MaxExprLen bytes or
// targets.MaxExprNodes nodes, one that is not boolean, and one that names anything but
// result, isNaN and isInf. Pure: the parser checks every condition with it, the runner
// compiles the plan's again.
func CompileCondition(src string) (*Condition, error) {
	if len(src) > targets.MaxExprLen {
		return nil, fmt.Errorf("condition is %d bytes, over the limit of %d", len(src), targets.MaxExprLen)
	}
	if err := targets.CheckBounded(src); err != nil {
		return nil, err
	}
	opts := append([]expr.Option{expr.Env(conditionEnv{}), expr.AsBool(), expr.MaxNodes(targets.MaxExprNodes)}, conditionFuncs...)
	opts = append(opts, targets.MeterOptions()...)
	p, err := expr.Compile(src, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s", strings.Join(strings.Fields(err.Error()), " "))
	}
	return &Condition{src: src, p: p}, nil
}

// String is the condition as written.
func (c *Condition) String() string { return c.src }

// Eval runs the condition over a query's result; an error (an index past the result's
// end) means the result cannot be judged by it.
func (c *Condition) Eval(result []float64) (bool, error) {
	out, err := targets.Run(c.p, conditionEnv{Result: result, Meter: targets.NewMeter()})
	if err != nil {
		return false, fmt.Errorf("%s: %s", c.src, strings.Join(strings.Fields(err.Error()), " "))
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("%s: not a boolean", c.src)
	}
	return b, nil
}
