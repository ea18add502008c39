package metrichook

import (
	"context"
	"net/url"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// kind is `type: metric` whole: its spec half (specHalf) and its run half, a Prometheus
// instant query, measured count times every interval (or, for a check measured through
// the soak, until Call.Until), each measurement judged by the check's conditions
// (conditions.judge) and counted against its limits (tally).
type kind struct{ spec.HookKind }

// Kind is `type: metric`, as internal/hooks/all registers it.
var Kind hooks.Kind = kind{specHalf}

// Reach is Prometheus' host; a run takes one of its slots per query, not for its length.
func (kind) Reach(block spec.HookBlock) hooks.Reach {
	m, ok := block.(*Block)
	if !ok {
		return hooks.Reach{}
	}
	reach := hooks.Reach{PerRequest: true}
	if u, err := url.Parse(m.Prometheus.Address); err == nil {
		reach.Host = u.Host
	}
	return reach
}

// Run measures until the outcome is decided: Failed once failed measurements exceed
// failureLimit, Inconclusive once inconclusive ones exceed inconclusiveLimit, Errored
// after more than MaxConsecutiveErrors measurements in a row could not run (or when none
// gave a value), else Succeeded after count measurements (or at the soak's end). Each
// query is bounded by the hook's timeout; it reaches Prometheus through the guarded client
// of http hooks (checked addresses, capped body, re-checked redirects).
func (kind) Run(ctx context.Context, r *hooks.Runner, c hooks.Call) hooks.Result {
	m, ok := c.Hook.Block.(*Block)
	if !ok {
		return hooks.NoBlock(c)
	}
	conds, err := compileConditions(m)
	if err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: "invalid condition: " + err.Error()}
	}
	t := &tally{m: m}
	for next := time.Now(); ; next = next.Add(m.Interval) {
		if !sleepUntil(ctx, next) {
			return hooks.Result{Outcome: hooks.Errored, Message: "timed out: " + t.message()}
		}
		if out, done := t.add(measure(ctx, r, c, m, conds)); done {
			return hooks.Result{Outcome: out, Message: t.message()}
		}
		if last := next.Add(m.Interval); (c.Until.IsZero() && m.Count == 0) || (!c.Until.IsZero() && last.After(c.Until)) {
			break // the soak ends before the next measurement is due
		}
	}
	return hooks.Result{Outcome: t.final(), Message: t.message()}
}

// measure runs the query once, within the hook's timeout, and judges its result.
func measure(ctx context.Context, r *hooks.Runner, c hooks.Call, m *Block, conds conditions) measurement {
	qctx, cancel := context.WithTimeout(ctx, hooks.RunTimeout(c.Hook))
	defer cancel()
	values, err := query(qctx, r, c, m.Prometheus)
	if err != nil {
		return measurement{outcome: hooks.Errored, why: err.Error()}
	}
	return conds.judge(values)
}

// sleepUntil waits for at, false when ctx ends first.
func sleepUntil(ctx context.Context, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// CallTimeout is how long one attempt of c may take. A metric check's timeout bounds each
// query, so its run may take its measurements' time: to the soak's end and one query more
// when measured through the soak, else count measurements and the errors tolerated in a
// row, each an interval and a query.
func (kind) CallTimeout(c hooks.Call) time.Duration {
	per := hooks.RunTimeout(c.Hook)
	m, ok := c.Hook.Block.(*Block)
	if !ok {
		return per
	}
	if !c.Until.IsZero() {
		return max(time.Until(c.Until), 0) + 2*per
	}
	return time.Duration(max(m.Count, 1)+MaxConsecutiveErrors) * (m.Interval + per)
}

// WithDefaults gives a metric check without an address the agent's --prometheus-address
// (Options).
func (kind) WithDefaults(r *hooks.Runner, block spec.HookBlock) spec.HookBlock {
	o, _ := hooks.OptionsOf[Options](r)
	if m, ok := block.(*Block); ok && m.Prometheus.Address == "" && o.PrometheusAddress != "" {
		c := *m
		c.Prometheus.Address = o.PrometheusAddress
		return &c
	}
	return block
}
