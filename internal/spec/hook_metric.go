package spec

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Limits of metric checks; there is no setting for them.
const (
	// MaxMetricTimeout bounds one measurement (a metric check's timeout is per query).
	MaxMetricTimeout = 10 * time.Minute
	// MaxMetricCount bounds the measurements of one run.
	MaxMetricCount = 1000
	// MinMetricInterval is the shortest time between two measurements.
	MinMetricInterval = time.Second
	// DefaultMetricInterval is the time between measurements when interval is not set.
	DefaultMetricInterval = 30 * time.Second
)

// DuringSoak is the one value of a check's `during`: measured through the phase's soak.
const DuringSoak = "soak"

// MetricKind is `type: metric`: a Prometheus query measured count times every interval,
// judged by expr-lang conditions over its result (Argo Rollouts' AnalysisTemplate metric).
var MetricKind = withTraits(newKind[MetricHook]("metric", MaxMetricTimeout, "use at most 10m: the timeout bounds one query", parseMetric),
	HookTraits{DuringSoak: true, InconclusiveFix: "look at the metric"})

// MetricHook is the metric block of a check.
type MetricHook struct {
	Prometheus PrometheusQuery `json:"prometheus"`
	// During is DuringSoak for a check measured through the soak, else empty (measured once
	// the phase's members are done, like every check). Read from the hook's `during`.
	During string `json:"during,omitempty"`
	// Interval is the time between measurements; Count how many measurements give the
	// outcome (0 only with During: until the soak ends).
	Interval          time.Duration `json:"interval"`
	Count             int           `json:"count,omitempty"`
	SuccessCondition  string        `json:"successCondition"`
	FailureCondition  string        `json:"failureCondition,omitempty"`
	FailureLimit      int           `json:"failureLimit,omitempty"`
	InconclusiveLimit int           `json:"inconclusiveLimit,omitempty"`
}

// PrometheusQuery is where and what a metric check asks.
type PrometheusQuery struct {
	// Address is Prometheus' base URL; empty: the agent's --prometheus-address.
	Address string            `json:"address,omitempty"`
	Query   string            `json:"query"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Fill fills the address, the query and the header values (and, though the parser lets
// no placeholder into them, the conditions and during).
func (m *MetricHook) Fill(f func(string) string) HookBlock {
	c := *m
	c.Prometheus.Address, c.Prometheus.Query = f(m.Prometheus.Address), f(m.Prometheus.Query)
	c.Prometheus.Headers = maps.Clone(m.Prometheus.Headers)
	for k, v := range c.Prometheus.Headers {
		c.Prometheus.Headers[k] = f(v)
	}
	c.During, c.SuccessCondition, c.FailureCondition = f(m.During), f(m.SuccessCondition), f(m.FailureCondition)
	return &c
}

// DuringSoak reports whether the check is measured through its phase's soak.
func (m *MetricHook) DuringSoak() bool { return m.During == DuringSoak }

// parseMetric reads the metric block of a check.
func parseMetric(d *dec, hn hookNode) *MetricHook {
	n := d.required(hn.fields, hn.node, hn.path, "metric", "add metric.prometheus.query and metric.successCondition")
	if n == nil {
		return nil
	}
	if !hn.check {
		d.fail(hn.fields["type"], hn.path+".type", "move it to the phase's checks", "a metric is a check, not a pre- or post-hook")
		return nil
	}
	path := hn.path + ".metric"
	f := d.fields(n, path, "prometheus", "interval", "count", "successCondition", "failureCondition", "failureLimit", "inconclusiveLimit")
	m := &MetricHook{Prometheus: d.prometheus(f, n, path)}
	m.During = d.oneOf(hn.fields["during"], hn.path+".during", "", DuringSoak)
	m.Interval = d.duration(f["interval"], path+".interval", DefaultMetricInterval)
	if m.Interval < MinMetricInterval {
		d.fail(f["interval"], path+".interval", "use at least 1s", "%s is too short", m.Interval)
	}
	m.Count = d.metricCount(f["count"], path+".count", m.During)
	m.SuccessCondition = d.condition(d.required(f, n, path, "successCondition", "write an expression over result, e.g. result[0] >= 0.99"), path+".successCondition")
	m.FailureCondition = d.condition(f["failureCondition"], path+".failureCondition")
	m.FailureLimit = d.metricLimit(f["failureLimit"], path+".failureLimit")
	m.InconclusiveLimit = d.metricLimit(f["inconclusiveLimit"], path+".inconclusiveLimit")
	return m
}

// prometheus reads metric.prometheus: a query, an address; secrets only in headers.
func (d *dec) prometheus(f map[string]*yaml.Node, parent *yaml.Node, path string) PrometheusQuery {
	n := d.required(f, parent, path, "prometheus", "add prometheus.query")
	if n == nil {
		return PrometheusQuery{}
	}
	path += ".prometheus"
	pf := d.fields(n, path, "address", "query", "headers")
	q := PrometheusQuery{
		Address: d.str(pf["address"], path+".address"),
		Query:   d.str(d.required(pf, n, path, "query", "write a PromQL instant query"), path+".query"),
		Headers: d.strMap(pf["headers"], path+".headers"),
	}
	if q.Address != "" && !validURL(q.Address) {
		d.fail(pf["address"], path+".address", "write an absolute http:// or https:// URL, e.g. http://prometheus.monitoring:9090", "invalid URL %q", q.Address)
	}
	for field, v := range map[string]string{"address": q.Address, "query": q.Query} {
		if refersToSecret(v) {
			d.fail(pf[field], path+"."+field, "pass a secret in headers (e.g. Authorization: Bearer {{.secrets.prom.token}})", "a secret may not be part of the %s: it would show in messages", field)
		}
	}
	return q
}

// refersToSecret reports whether s has a placeholder naming a secret, read by the same
// matcher the templating uses (so {{  .secrets.p.k}} and {{\t.secrets.p.k}} count too).
func refersToSecret(s string) bool {
	for _, m := range HookPlaceholder.FindAllStringSubmatch(s, -1) {
		if strings.HasPrefix(strings.TrimSpace(m[1]), ".secrets.") {
			return true
		}
	}
	return false
}

// metricCount reads count: at least 1 (default 1); a check measured through the soak
// may leave it out (0: until the soak ends).
func (d *dec) metricCount(n *yaml.Node, path, during string) int {
	v, ok := d.integer(n, path)
	switch {
	case !ok && during == DuringSoak:
		return 0
	case !ok:
		return 1
	case v < 1 || v > MaxMetricCount:
		d.fail(n, path, fmt.Sprintf("use 1 to %d", MaxMetricCount), "out of range: %d", v)
	}
	return v
}

// metricLimit reads failureLimit or inconclusiveLimit: 0 or more.
func (d *dec) metricLimit(n *yaml.Node, path string) int {
	v, ok := d.integer(n, path)
	if ok && (v < 0 || v > MaxMetricCount) {
		d.fail(n, path, fmt.Sprintf("use 0 to %d", MaxMetricCount), "out of range: %d", v)
	}
	return v
}

// condition reads and compiles a condition; it is kept as written, compiled again where
// it runs.
func (d *dec) condition(n *yaml.Node, path string) string {
	src := d.str(n, path)
	if src == "" {
		return ""
	}
	if strings.Contains(src, "{{") {
		d.fail(n, path, "write the condition over result alone; template the query instead", "a condition is not templated")
		return src
	}
	if _, err := CompileCondition(src); err != nil {
		d.fail(n, path, "write a boolean expr-lang expression over result (a list of numbers), e.g. result[0] >= 0.99; isNaN(x) and isInf(x) are there", "%s", err)
	}
	return src
}

// refuseDuring refuses `during` in a hook of a kind without the DuringSoak trait, naming
// the kinds that have it.
func (d *dec) refuseDuring(f map[string]*yaml.Node, path string, k HookKind) {
	if n := f["during"]; n != nil && !k.Traits().DuringSoak {
		var soaking []string
		for _, other := range hookKinds {
			if other.Traits().DuringSoak {
				soaking = append(soaking, other.Name())
			}
		}
		d.fail(n, path+".during", "remove it: only a "+strings.Join(soaking, " or ")+" check is measured through the soak", "type %s has no during", k.Name())
	}
}

// soakChecks refuses a check measured through the soak in a phase without one.
func (d *dec) soakChecks(p Phase, checks *yaml.Node, path string) {
	if p.WaitDuration > 0 {
		return
	}
	items := d.seq(checks, path)
	for i, h := range p.Checks {
		if h.DuringSoak() && i < len(items) {
			d.fail(items[i], fmt.Sprintf("%s[%d].during", path, i), "give the phase a waitDuration, or remove during: soak", "the phase has no soak to measure through")
		}
	}
}
