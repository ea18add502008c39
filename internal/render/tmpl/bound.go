package tmpl

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Bounds are what one execution of one Go template string may spend. Every execution is
// held to them, whatever the template: a loop iteration, a template call, a function call
// and a write of output each check them, and a function is refused before it runs when
// what it would build exceeds what is left (DESIGN §6 and docs/security.md: a spec in one
// repository must not stop every parent's renders).
type Bounds struct {
	// Steps bounds the loop iterations and template calls of one execution.
	Steps int
	// Bytes bounds what the functions of one execution may build, summed over its calls
	// (the garbage a loop leaves counts: it is what a doubling variable would allocate).
	Bytes int
	// Output bounds the text one execution writes.
	Output int
	// Time bounds one execution's wall time, under any deadline of the caller's context.
	Time time.Duration
	// Depth bounds how deep template calls nest ({{template}} within a definition).
	Depth int
}

// DefaultBounds hold every template of the seeds and examples with a wide margin: one
// execution of an ApplicationSet template string renders a name, a label, a path or a
// values block, in microseconds.
var DefaultBounds = Bounds{Steps: 100_000, Bytes: 16 << 20, Output: 1 << 20, Time: 2 * time.Second, Depth: 100}

// ErrBound is what an execution that ran past its Bounds (or its caller's deadline)
// returns, wrapped with which bound and where.
var ErrBound = errors.New("template exceeds its bounds")

// boundError is ErrBound with what was exceeded and the fix.
type boundError struct {
	what, fix string
}

func (e *boundError) Error() string {
	return fmt.Sprintf("%s: %s (fix: %s)", ErrBound, e.what, e.fix)
}

func (e *boundError) Unwrap() error { return ErrBound }

// budget is what is left of one execution's Bounds.
type budget struct {
	ctx      context.Context
	deadline time.Time
	ctxEnds  bool // the deadline is the caller's
	steps    int
	depth    int
	bytes    int
	output   int
	limits   Bounds
}

func (b *budget) reset(ctx context.Context, l Bounds, now time.Time) {
	if ctx == nil {
		ctx = context.Background()
	}
	b.ctx, b.limits = ctx, l
	b.steps, b.bytes, b.output, b.depth = l.Steps, l.Bytes, l.Output, 0
	b.deadline, b.ctxEnds = now.Add(l.Time), false
	if d, ok := ctx.Deadline(); ok && d.Before(b.deadline) {
		b.deadline, b.ctxEnds = d, true
	}
}

// check ends the execution when its time or its caller's context is over.
func (b *budget) check() error {
	if err := b.ctx.Err(); err != nil {
		return &boundError{what: "the render was cancelled: " + err.Error(), fix: "make the template cheaper; see docs/spec.md#template-bounds"}
	}
	if time.Now().After(b.deadline) {
		if b.ctxEnds {
			return &boundError{what: "the render was cancelled: its deadline passed", fix: "make the template cheaper; see docs/spec.md#template-bounds"}
		}
		return &boundError{what: fmt.Sprintf("it ran longer than %s", b.limits.Time), fix: "make the template cheaper; see docs/spec.md#template-bounds"}
	}
	return nil
}

// step is one loop iteration or template call.
func (b *budget) step() error {
	b.steps--
	if b.steps < 0 {
		return &boundError{what: fmt.Sprintf("it runs more than %d loop iterations and template calls", b.limits.Steps),
			fix: "range over less, or nest fewer loops"}
	}
	return b.check()
}

// enter is a template call: a step, one level deeper.
func (b *budget) enter() error {
	b.depth++
	if b.depth > b.limits.Depth {
		return &boundError{what: fmt.Sprintf("its template calls nest deeper than %d", b.limits.Depth), fix: "end the recursion sooner"}
	}
	return b.step()
}

// reserve takes n bytes a function is about to build, or refuses the call.
func (b *budget) reserve(fn string, n int) error {
	if n < 0 || n > b.bytes {
		return &boundError{what: fmt.Sprintf("%s would build more than the %d bytes left of %d", fn, max(b.bytes, 0), b.limits.Bytes),
			fix: "build smaller values; a value doubled in a loop grows past any bound"}
	}
	b.bytes -= n
	return b.check()
}

// wrote takes n bytes of output.
func (b *budget) wrote(n int) error {
	b.output -= n
	if b.output < 0 {
		return &boundError{what: fmt.Sprintf("it writes more than %d bytes", b.limits.Output), fix: "write less; a child Application must stay far below Kubernetes' object size"}
	}
	return b.check()
}

// capWriter is the output of one execution, held to its budget.
type capWriter struct {
	b   *budget
	out interface{ Write([]byte) (int, error) }
}

func (w *capWriter) Write(p []byte) (int, error) {
	if err := w.b.wrote(len(p)); err != nil {
		return 0, err
	}
	return w.out.Write(p)
}
