package metrichook

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
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

// specHalf is `type: metric`'s spec half: a Prometheus query measured count times every
// interval, judged by expr-lang conditions over its result (Argo Rollouts'
// AnalysisTemplate metric). A check may be measured through the soak, and an
// Inconclusive one pauses the rollout for a person.
var specHalf = spec.NewHookKind[Block](spec.HookKindDef[*Block]{
	Name: "metric", MaxTimeout: MaxMetricTimeout, TimeoutFix: "use at most 10m: the timeout bounds one query",
	Traits: spec.HookTraits{DuringSoak: true, InconclusiveFix: "look at the metric"},
	Parse:  parse,
})

// Block is the metric block of a check.
type Block struct {
	Prometheus PrometheusQuery `json:"prometheus"`
	// During is spec.DuringSoak for a check measured through the soak, else empty (measured once
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
func (m *Block) Fill(f func(string) string) spec.HookBlock { return m.FillFields(hooks.AnyField(f)) }

// FillFields fills the address (a cluster value never sets its host: hooks.URL), the
// query (escaped for PromQL: hooks.PromQL), the header values (hooks.Header), the
// conditions and during.
func (m *Block) FillFields(f func(hooks.Field, string) string) spec.HookBlock {
	c := *m
	c.Prometheus.Address = f(hooks.Field{Path: "metric.prometheus.address", In: hooks.URL}, m.Prometheus.Address)
	c.Prometheus.Query = f(hooks.Field{Path: "metric.prometheus.query", In: hooks.PromQL}, m.Prometheus.Query)
	c.Prometheus.Headers = maps.Clone(m.Prometheus.Headers)
	for k, v := range c.Prometheus.Headers {
		c.Prometheus.Headers[k] = f(hooks.Field{Path: "metric.prometheus.headers." + k, In: hooks.Header}, v)
	}
	c.During = f(hooks.Field{Path: "during", In: hooks.Text}, m.During)
	c.SuccessCondition = f(hooks.Field{Path: "metric.successCondition", In: hooks.Text}, m.SuccessCondition)
	c.FailureCondition = f(hooks.Field{Path: "metric.failureCondition", In: hooks.Text}, m.FailureCondition)
	return &c
}

// DuringSoak reports whether the check is measured through its phase's soak.
func (m *Block) DuringSoak() bool { return m.During == spec.DuringSoak }

// parse reads the metric block of a check.
func parse(r *spec.HookReader) *Block {
	n := r.Block("add metric.prometheus.query and metric.successCondition")
	if n == nil {
		return nil
	}
	if !r.Check() {
		r.Fail(r.Field("type"), r.Path()+".type", "move it to the phase's checks", "a metric is a check, not a pre- or post-hook")
		return nil
	}
	path := r.Path() + ".metric"
	f := r.Fields(n, path, "prometheus", "interval", "count", "successCondition", "failureCondition", "failureLimit", "inconclusiveLimit")
	m := &Block{Prometheus: prometheus(r, f, n, path)}
	m.During = r.OneOf(r.Field("during"), r.Path()+".during", "", spec.DuringSoak)
	m.Interval = r.Duration(f["interval"], path+".interval", DefaultMetricInterval)
	if m.Interval < MinMetricInterval {
		r.Fail(f["interval"], path+".interval", "use at least 1s", "%s is too short", m.Interval)
	}
	m.Count = count(r, f["count"], path+".count", m.During)
	m.SuccessCondition = condition(r, r.Required(f, n, path, "successCondition", "write an expression over result, e.g. result[0] >= 0.99"), path+".successCondition")
	m.FailureCondition = condition(r, f["failureCondition"], path+".failureCondition")
	m.FailureLimit = limit(r, f["failureLimit"], path+".failureLimit")
	m.InconclusiveLimit = limit(r, f["inconclusiveLimit"], path+".inconclusiveLimit")
	return m
}

// prometheus reads metric.prometheus: a query, an address; secrets only in headers.
func prometheus(r *spec.HookReader, f map[string]*yaml.Node, parent *yaml.Node, path string) PrometheusQuery {
	n := r.Required(f, parent, path, "prometheus", "add prometheus.query")
	if n == nil {
		return PrometheusQuery{}
	}
	path += ".prometheus"
	pf := r.Fields(n, path, "address", "query", "headers")
	q := PrometheusQuery{
		Address: r.Str(pf["address"], path+".address"),
		Query:   r.Str(r.Required(pf, n, path, "query", "write a PromQL instant query"), path+".query"),
		Headers: r.StrMap(pf["headers"], path+".headers"),
	}
	r.Mark("metric.prometheus.headers", pf["headers"])
	if q.Address != "" && !spec.ValidHookURL(q.Address) {
		r.Fail(pf["address"], path+".address", "write an absolute http:// or https:// URL, e.g. http://prometheus.monitoring:9090", "invalid URL %q", q.Address)
	}
	if problem, fix := hooks.TemplateProblem(hooks.URL, q.Address); problem != "" {
		r.Fail(pf["address"], path+".address", fix, "%s", problem)
	}
	if hooks.ClusterInHost(q.Address) && slices.ContainsFunc(slices.Collect(maps.Values(q.Headers)), spec.RefersToSecret) {
		r.Fail(pf["address"], path+".address", "write the host literally to send a secret; put cluster values in the query",
			"a cluster field sets the host, so the check may not send a secret to it")
	}
	for field, v := range map[string]string{"address": q.Address, "query": q.Query} {
		if spec.RefersToSecret(v) {
			r.Fail(pf[field], path+"."+field, "pass a secret in headers (e.g. Authorization: Bearer {{.secrets.prom.token}})", "a secret may not be part of the %s: it would show in messages", field)
		}
	}
	return q
}

// count reads count: at least 1 (default 1); a check measured through the soak may
// leave it out (0: until the soak ends).
func count(r *spec.HookReader, n *yaml.Node, path, during string) int {
	v, ok := r.Integer(n, path)
	switch {
	case !ok && during == spec.DuringSoak:
		return 0
	case !ok:
		return 1
	case v < 1 || v > MaxMetricCount:
		r.Fail(n, path, fmt.Sprintf("use 1 to %d", MaxMetricCount), "out of range: %d", v)
	}
	return v
}

// limit reads failureLimit or inconclusiveLimit: 0 or more.
func limit(r *spec.HookReader, n *yaml.Node, path string) int {
	v, ok := r.Integer(n, path)
	if ok && (v < 0 || v > MaxMetricCount) {
		r.Fail(n, path, fmt.Sprintf("use 0 to %d", MaxMetricCount), "out of range: %d", v)
	}
	return v
}

// condition reads and compiles a condition; it is kept as written, compiled again where
// it runs.
func condition(r *spec.HookReader, n *yaml.Node, path string) string {
	src := r.Str(n, path)
	if src == "" {
		return ""
	}
	if strings.Contains(src, "{{") {
		r.Fail(n, path, "write the condition over result alone; template the query instead", "a condition is not templated")
		return src
	}
	if _, err := CompileCondition(src); err != nil {
		r.Fail(n, path, "write a boolean expr-lang expression over result (a list of numbers), e.g. result[0] >= 0.99; isNaN(x) and isInf(x) are there", "%s", err)
	}
	return src
}

// Violations are the ways the check asks for more than l allows: more headers than
// --max-headers (its timeout is its kind's fixed limit, which spec checks).
func (m *Block) Violations(l spec.Limits) []spec.Violation {
	if len(m.Prometheus.Headers) > l.Headers {
		return []spec.Violation{spec.CountViolation("metric.prometheus.headers", "headers", len(m.Prometheus.Headers), l.Headers, spec.FlagMaxHeaders, "send fewer headers")}
	}
	return nil
}
