package metrichook

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// MaxConsecutiveErrors is how many measurements in a row may fail to run (Prometheus
// unreachable or refusing the query) before a metric check is Errored; each is tried
// again at the next interval and none counts towards count.
const MaxConsecutiveErrors = 4

// maxMeasurementsShown bounds the values a metric check's message lists (the latest).
const maxMeasurementsShown = 10

// measurement is how one query was judged: Succeeded, Failed, Inconclusive or Errored.
type measurement struct {
	outcome hooks.Outcome
	values  []float64
	why     string // the decisive condition, or why it said nothing or could not run
}

// conditions are a metric check's compiled conditions.
type conditions struct {
	success, failure *Condition // failure nil when not given
}

func compileConditions(m *Block) (conditions, error) {
	var c conditions
	var err error
	if c.success, err = CompileCondition(m.SuccessCondition); err != nil {
		return c, fmt.Errorf("successCondition: %w", err)
	}
	if m.FailureCondition != "" {
		if c.failure, err = CompileCondition(m.FailureCondition); err != nil {
			return c, fmt.Errorf("failureCondition: %w", err)
		}
	}
	return c, nil
}

// judge judges one query's result: an empty one is Inconclusive; a true failureCondition is
// Failed (whatever successCondition says); a true successCondition is Succeeded; else a NaN
// in the result or a failureCondition that said false too is Inconclusive, and a false
// successCondition alone is Failed. A condition that cannot be evaluated over the result (an
// index past its end) is Inconclusive: the data is not what the check expects.
func (c conditions) judge(values []float64) measurement {
	m := measurement{values: values}
	if len(values) == 0 {
		m.outcome, m.why = hooks.Inconclusive, "no data"
		return m
	}
	if c.failure != nil {
		bad, err := c.failure.Eval(values)
		if err != nil {
			m.outcome, m.why = hooks.Inconclusive, err.Error()
			return m
		}
		if bad {
			m.outcome, m.why = hooks.Failed, "failed: "+c.failure.String()
			return m
		}
	}
	good, err := c.success.Eval(values)
	switch {
	case err != nil:
		m.outcome, m.why = hooks.Inconclusive, err.Error()
	case good:
		m.outcome = hooks.Succeeded
	case slices.ContainsFunc(values, math.IsNaN):
		m.outcome, m.why = hooks.Inconclusive, "NaN"
	case c.failure != nil:
		m.outcome, m.why = hooks.Inconclusive, "neither condition held"
	default:
		m.outcome, m.why = hooks.Failed, "failed: "+c.success.String()
	}
	return m
}

// tally counts a run's measurements against its limits.
type tally struct {
	m                               *Block
	shown                           []string
	measured, failed, inconclusive  int
	consecutiveErrors, totalErrored int
	last                            string // the latest measurement's why
}

// add counts one measurement; done when the run's outcome is decided by it (a limit
// exceeded), with that outcome.
func (t *tally) add(ms measurement) (hooks.Outcome, bool) {
	if ms.outcome == hooks.Errored {
		t.consecutiveErrors++
		t.totalErrored++
		t.last = "error: " + ms.why
		return hooks.Errored, t.consecutiveErrors > MaxConsecutiveErrors
	}
	t.consecutiveErrors = 0
	t.measured++
	t.shown = append(t.shown, showValues(ms.values))
	if len(t.shown) > maxMeasurementsShown {
		t.shown = t.shown[1:]
	}
	t.last = ""
	if ms.why != "" {
		t.last = strings.ToLower(string(ms.outcome)) + ": " + ms.why
		if ms.outcome == hooks.Failed {
			t.last = ms.why
		}
	}
	switch ms.outcome {
	case hooks.Failed:
		t.failed++
		return hooks.Failed, t.failed > t.m.FailureLimit
	case hooks.Inconclusive:
		t.inconclusive++
		return hooks.Inconclusive, t.inconclusive > t.m.InconclusiveLimit
	}
	return hooks.Succeeded, t.m.Count > 0 && t.measured >= t.m.Count
}

// final is the outcome of a run whose measurements ended without a limit exceeded: Errored
// when none gave a value, else Succeeded.
func (t *tally) final() hooks.Outcome {
	if t.measured == 0 {
		return hooks.Errored
	}
	return hooks.Succeeded
}

// message is the run's record: `3/5 measured: 0.998, 0.997, 0.92 (failed: result[0] >= 0.99)`.
func (t *tally) message() string {
	var b strings.Builder
	if t.m.Count > 0 {
		fmt.Fprintf(&b, "%d/%d measured", t.measured, t.m.Count)
	} else {
		fmt.Fprintf(&b, "%d measured through the soak", t.measured)
	}
	if len(t.shown) > 0 {
		b.WriteString(": ")
		if t.measured > len(t.shown) {
			b.WriteString("…, ")
		}
		b.WriteString(strings.Join(t.shown, ", "))
	}
	var notes []string
	if t.last != "" {
		notes = append(notes, t.last)
	}
	if t.failed > 0 || t.inconclusive > 0 || t.totalErrored > 0 {
		notes = append(notes, fmt.Sprintf("%d failed, %d inconclusive, %d errored", t.failed, t.inconclusive, t.totalErrored))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
	}
	return b.String()
}

// showValues writes one result compactly: 0.998, or [0.998 0.97] for several series.
func showValues(v []float64) string {
	if len(v) == 1 {
		return strconv.FormatFloat(v[0], 'g', 4, 64)
	}
	parts := make([]string, len(v))
	for i, f := range v {
		parts[i] = strconv.FormatFloat(f, 'g', 4, 64)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
