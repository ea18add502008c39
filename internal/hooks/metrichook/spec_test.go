package metrichook

import (
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/hooks/httphook"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/spec/spectest"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

func init() { hooks.Register(httphook.Kind); hooks.Register(Kind) } // as internal/hooks/all does, which this package's tests cannot import

const base = spectest.Base

// metricSpec is the base spec with list (checks, preHooks) holding one hook of the given
// body (indented as a list item's fields) in its first phase, with a soak when wait is set.
func metricSpec(list, body string, wait bool) []byte {
	hook := "        " + list + ":\n        - name: success-rate\n" + body
	if wait {
		hook += "        waitDuration: 10m\n"
	}
	return []byte(strings.Replace(base, "      - name: rest\n", hook+"      - name: rest\n", 1))
}

const metricBody = `          type: metric
          during: soak
          metric:
            prometheus:
              address: http://prometheus.monitoring:9090
              query: sum(rate(http_requests_total{cluster="{{name}}",code!~"5.."}[5m])) / sum(rate(http_requests_total{cluster="{{name}}"}[5m]))
              headers: {Authorization: 'Bearer {{.secrets.prom.token}}'}
            interval: 30s
            count: 5
            successCondition: result[0] >= 0.99
            failureCondition: result[0] < 0.95
            failureLimit: 1
            inconclusiveLimit: 2
`

func TestAMetricCheckIsRead(t *testing.T) {
	s, err := spec.Parse("spec.yaml", metricSpec("checks", metricBody, true), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Phases[0].Checks[0]
	m, ok := h.Block.(*Block)
	if !ok || !h.DuringSoak() || !h.PerCluster() || m.Count != 5 || m.Interval != 30*time.Second || m.FailureLimit != 1 ||
		m.InconclusiveLimit != 2 || m.Prometheus.Address != "http://prometheus.monitoring:9090" || m.Prometheus.Headers["Authorization"] == "" {
		t.Fatalf("%+v %+v", h, m)
	}
	minimal := "          type: metric\n          metric:\n            prometheus: {query: up}\n            successCondition: result[0] == 1\n"
	s, err = spec.Parse("spec.yaml", metricSpec("checks", minimal, false), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Phases[0].Checks[0].Block.(*Block); m.Count != 1 || m.Interval != DefaultMetricInterval || m.During != "" || s.Phases[0].Checks[0].PerCluster() {
		t.Fatalf("defaults: %+v", m)
	}
	soak := strings.Replace(minimal, "          metric:\n", "          during: soak\n          metric:\n", 1)
	if s, err = spec.Parse("spec.yaml", metricSpec("checks", soak, true), targets.NewCache(8)); err != nil || s.Phases[0].Checks[0].Block.(*Block).Count != 0 {
		t.Fatalf("through the soak, count may be left out (until the soak ends): %v", err)
	}
}

func TestAMetricCheckIsRefusedWithFileFieldAndFix(t *testing.T) {
	cases := []struct {
		name, list, from, to string
		wait                 bool
		want                 []string
	}{
		{"a bad condition", "checks", "result[0] >= 0.99", "result[0] >=", true, []string{"spec.yaml:", "checks[0].metric.successCondition", "fix: write a boolean expr-lang expression"}},
		{"a condition that is not boolean", "checks", "result[0] >= 0.99", "result[0]", true, []string{"metric.successCondition", "expected bool"}},
		{"an unknown name", "checks", "result[0] >= 0.99", "rate >= 0.99", true, []string{"metric.successCondition", "unknown name rate"}},
		{"a templated condition", "checks", "result[0] < 0.95", "result[0] < {{name}}", true, []string{"metric.failureCondition", "not templated"}},
		{"during: soak without a soak", "checks", "", "", false, []string{"checks[0].during", "fix: give the phase a waitDuration"}},
		{"during: something else", "checks", "during: soak", "during: sync", true, []string{"checks[0].during", `unknown value "sync"`}},
		{"a metric pre-hook", "preHooks", "          during: soak\n", "", false, []string{"preHooks[0].type", "fix: move it to the phase's checks"}},
		{"a secret in the query", "checks", `cluster="{{name}}",code`, `cluster="{{.secrets.p.k}}",code`, true, []string{"prometheus.query", "fix: pass a secret in headers"}},
		{"a secret in the query, two spaces", "checks", `cluster="{{name}}",code`, `cluster="{{  .secrets.p.k}}",code`, true, []string{"prometheus.query", "fix: pass a secret in headers"}},
		{"a secret in the query, a tab", "checks", `cluster="{{name}}",code`, "cluster=\"{{\t.secrets.p.k }}\",code", true, []string{"prometheus.query", "fix: pass a secret in headers"}},
		{"a secret in the address", "checks", "http://prometheus.monitoring:9090", "http://{{   .secrets.p.k}}.monitoring:9090", true, []string{"prometheus.address", "fix: pass a secret in headers"}},
		{"a bad address", "checks", "http://prometheus.monitoring:9090", "prometheus:9090", true, []string{"prometheus.address", "invalid URL"}},
		{"count 0", "checks", "count: 5", "count: 0", true, []string{"metric.count", "out of range: 0"}},
		{"a short interval", "checks", "interval: 30s", "interval: 10ms", true, []string{"metric.interval", "fix: use at least 1s"}},
		{"a negative failureLimit", "checks", "failureLimit: 1", "failureLimit: -1", true, []string{"metric.failureLimit", "out of range"}},
		{"no query", "checks", "              query: sum", "              querry: sum", true, []string{"prometheus.querry", "unknown field"}},
		{"no successCondition", "checks", "successCondition:", "succesCondition:", true, []string{"metric.successCondition", "is required"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := metricBody
			if c.from != "" {
				body = strings.Replace(body, c.from, c.to, 1)
			}
			_, err := spec.Parse("spec.yaml", metricSpec(c.list, body, c.wait), targets.NewCache(8))
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

func TestDuringIsOnlyForMetricChecks(t *testing.T) {
	body := "          type: http\n          during: soak\n          http: {url: 'https://x.example.com'}\n"
	_, err := spec.Parse("spec.yaml", metricSpec("checks", body, true), targets.NewCache(8))
	if err == nil || !strings.Contains(err.Error(), "checks[0].during: type http has no during") {
		t.Fatalf("got %v", err)
	}
}

func TestConditions(t *testing.T) {
	for src, want := range map[string]bool{
		"result[0] >= 0.99":                       true,
		"len(result) == 2 && result[1] < 1":       true,
		"all(result, {# > 0.5})":                  true,
		"isNaN(result[0]) || isInf(result[1])":    false,
		"result[0] + result[1] > 1.5 and true":    true,
		"!(result[0] < 0.99) or isNaN(result[0])": true,
	} {
		c, err := CompileCondition(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got, err := c.Eval([]float64{0.995, 0.9}); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", src, got, err, want)
		}
	}
	for _, src := range []string{"", "result", "result[0] >", "nope > 1", strings.Repeat("1+", 3000) + "1 > 0"} {
		if _, err := CompileCondition(src); err == nil {
			t.Errorf("%.40q compiled", src)
		}
	}
}

func TestAMetricCheckOverTheHeaderLimitIsHeld(t *testing.T) {
	h := spec.Hook{Name: "m", Type: "metric", Timeout: time.Minute, Block: &Block{Prometheus: PrometheusQuery{Headers: map[string]string{"a": "1", "b": "2"}}}}
	if v := (spec.Limits{Headers: 1}).Violations(h); len(v) != 1 || v[0].Field != "metric.prometheus.headers" {
		t.Fatalf("%+v", v)
	}
	h.Timeout = time.Hour
	if v := spec.DefaultLimits().Violations(h); len(v) != 1 || v[0].Field != "timeout" || !strings.Contains(v[0].Fix, "one query") {
		t.Fatalf("%+v", v)
	}
}

// FuzzMetricCheck: no metric block panics the parser or takes long; errors are located.
func FuzzMetricCheck(f *testing.F) {
	f.Add(metricBody, true)
	f.Add("          type: metric\n          metric: {prometheus: {query: up}, successCondition: 'result[0] == 1'}\n", false)
	f.Add("          type: metric\n          during: soak\n          metric: {prometheus: {query: up}, successCondition: 'isNaN(result[9])', count: 99999}\n", true)
	exprs := targets.NewCache(64)
	f.Fuzz(func(t *testing.T, body string, wait bool) {
		var err error
		done := make(chan struct{})
		go func() { _, err = spec.Parse("fuzz.yaml", metricSpec("checks", body, wait), exprs); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Parse has not returned after 10 s on %q", body)
		}
		if es, ok := err.(spec.Errors); ok {
			for _, e := range es {
				if e.File != "fuzz.yaml" || e.Path == "" {
					t.Fatalf("unlocated error %+v", e)
				}
			}
		}
	})
}
