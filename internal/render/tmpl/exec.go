package tmpl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"text/template"
	"time"
)

// runner executes one parsed Go template under Bounds. Executions may run at once: each
// takes a unit — a clone of the template whose functions are bound to the unit's own
// budget — from a pool, so binding the ~200 functions is paid once per concurrent
// execution, not per execution.
type runner struct {
	parsed *template.Template
	units  sync.Pool
}

type unit struct {
	t *template.Template
	b *budget
}

func newRunner(t *template.Template) *runner {
	r := &runner{parsed: t}
	r.units.New = func() any {
		b := &budget{}
		c, err := r.parsed.Clone()
		if err != nil { // Clone fails only on a template already executed as html/template
			return err
		}
		return &unit{t: c.Funcs(bind(b)), b: b}
	}
	return r
}

// run executes the template for data into out, held to bounds and ctx.
func (r *runner) run(ctx context.Context, bounds Bounds, out io.Writer, data any) error {
	got := r.units.Get()
	u, ok := got.(*unit)
	if !ok {
		return fmt.Errorf("prepare template: %v", got)
	}
	defer r.units.Put(u)
	u.b.reset(ctx, bounds, time.Now())
	if err := u.b.check(); err != nil {
		return err
	}
	return u.t.Execute(&capWriter{b: u.b, out: out}, data)
}

// boundOf is the bound error in err's chain, for a message that says what was exceeded
// rather than where text/template was.
func boundOf(err error) (*boundError, bool) {
	var be *boundError
	if errors.As(err, &be) {
		return be, true
	}
	return nil, false
}
