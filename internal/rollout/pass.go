package rollout

import (
	"time"

	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// pass is one pass of the engine over a rollout: the state it changes, the plan and the
// observations it goes by, the time, and what it decided so far. The engine's rules are
// its methods: a rule reads ps.p and ps.o, changes ps.st, and adds the I/O it asks for with
// add, emit, warn, requeue and consume; none is handed the actions.
type pass struct {
	st  *state.State
	p   plan.Plan
	o   Observed
	now time.Time
	// acts are the actions asked for so far, in order.
	acts []Action
	// problems are the edits of the ConfigMap refused so far (reject; steer reports them).
	problems []control.Problem
}

// add asks for action a.
func (ps *pass) add(a Action) {
	ps.acts = append(ps.acts, a)
}

// requeue asks the agent to come back at at, saying why.
func (ps *pass) requeue(at time.Time, why string) {
	ps.add(Action{Kind: ActRequeue, At: at, Message: why})
}

// emit records an event in rollout r's history (none when r is nil) and asks the agent to
// publish it.
func (ps *pass) emit(r *state.Rollout, event, msg string) {
	if r != nil {
		r.Record(ps.now, event, msg)
	}
	ps.add(Action{Kind: ActEvent, Reason: event, Warning: warnings[event], Message: msg})
}

// warn emits a Warning event (one the warnings list does not name).
func (ps *pass) warn(r *state.Rollout, event, msg string) {
	ps.emit(r, event, msg)
	ps.acts[len(ps.acts)-1].Warning = true
}

// consume asks the agent to remove control keys from the ConfigMap (acted on).
func (ps *pass) consume(keys ...string) {
	for _, k := range keys {
		ps.add(Action{Kind: ActConsume, Key: k})
	}
}

// reject refuses an edit of key (its value) with a message saying why and the fix.
func (ps *pass) reject(key, value, msg string, args ...any) {
	ps.problems = append(ps.problems, control.Problemf(key, value, msg, args...))
}

// under runs do on a copy of the pass that goes by plan p and observations o (a track's,
// or a rollout's that just started), keeping the actions and refusals it adds.
func (ps *pass) under(p plan.Plan, o Observed, do func(q *pass)) {
	q := *ps
	q.p, q.o = p, o
	do(&q)
	ps.acts, ps.problems = q.acts, q.problems
}
