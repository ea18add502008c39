package hooks

import (
	"context"
	"net/url"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// metricKind runs `type: metric` checks: a Prometheus instant query, measured count times
// every interval (or, for a check measured through the soak, until Call.Until), each
// measurement judged by the check's conditions (conditions.judge) and counted against its
// limits (tally).
type metricKind struct{ spec.HookKind }

// Reach is Prometheus' host; a run takes one of its slots per query, not for its length.
func (metricKind) Reach(block spec.HookBlock) Reach {
	m, ok := block.(*spec.MetricHook)
	if !ok {
		return Reach{}
	}
	reach := Reach{PerRequest: true}
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
func (metricKind) Run(ctx context.Context, r *Runner, c Call) Result {
	m, ok := c.Hook.Block.(*spec.MetricHook)
	if !ok {
		return noBlock(c)
	}
	conds, err := compileConditions(m)
	if err != nil {
		return Result{Outcome: Errored, Message: "invalid condition: " + err.Error()}
	}
	t := &tally{m: m}
	for next := time.Now(); ; next = next.Add(m.Interval) {
		if !sleepUntil(ctx, next) {
			return Result{Outcome: Errored, Message: "timed out: " + t.message()}
		}
		if out, done := t.add(r.measure(ctx, c, m, conds)); done {
			return Result{Outcome: out, Message: t.message()}
		}
		if last := next.Add(m.Interval); (c.Until.IsZero() && m.Count == 0) || (!c.Until.IsZero() && last.After(c.Until)) {
			break // the soak ends before the next measurement is due
		}
	}
	return Result{Outcome: t.final(), Message: t.message()}
}

// measure runs the query once, within the hook's timeout, and judges its result.
func (r *Runner) measure(ctx context.Context, c Call, m *spec.MetricHook, conds conditions) measurement {
	qctx, cancel := context.WithTimeout(ctx, runTimeout(c.Hook))
	defer cancel()
	values, err := r.query(qctx, c, m.Prometheus)
	if err != nil {
		return measurement{outcome: Errored, why: err.Error()}
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

// callTimeout is how long one attempt of c may take. A metric check's timeout bounds each
// query, so its run may take its measurements' time: to the soak's end and one query more
// when measured through the soak, else count measurements and the errors tolerated in a
// row, each an interval and a query. Every other kind's is its hook's timeout.
func callTimeout(c Call) time.Duration {
	per := runTimeout(c.Hook)
	m, ok := c.Hook.Block.(*spec.MetricHook)
	if !ok {
		return per
	}
	if !c.Until.IsZero() {
		return max(time.Until(c.Until), 0) + 2*per
	}
	return time.Duration(max(m.Count, 1)+MaxConsecutiveErrors) * (m.Interval + per)
}

// withDefaults gives a metric check without an address the agent's --prometheus-address.
func (r *Runner) withDefaults(h spec.Hook) spec.Hook {
	if m, ok := h.Block.(*spec.MetricHook); ok && m.Prometheus.Address == "" && r.limits.PrometheusAddress != "" {
		c := *m
		c.Prometheus.Address = r.limits.PrometheusAddress
		h.Block = &c
	}
	return h
}
