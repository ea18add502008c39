package metrichook

import (
	"errors"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

func fillQuery(address, query, v string) (*Block, error) {
	vars := hooks.PhaseVars("guestbook", "argocd", "prod")
	vars["name"], vars["metadata.labels.env"] = v, v
	b := &Block{Prometheus: PrometheusQuery{Address: address, Query: query, Headers: map[string]string{"Authorization": "Bearer {{.secrets.prom.token}}"}}}
	h, _, err := hooks.Template(spec.Hook{Name: "success-rate", Type: "metric", Block: b}, vars, func(string, string) (string, error) { return "s3cr3t", nil })
	if err != nil {
		if strings.Contains(err.Error(), "s3cr3t") {
			return nil, errors.New("a secret in an error")
		}
		return nil, err
	}
	return h.Block.(*Block), nil
}

// TestAClusterValueStaysInsideItsPromQLString: a hostile cluster name cannot close the
// label matcher and turn the gate into one that always passes.
func TestAClusterValueStaysInsideItsPromQLString(t *testing.T) {
	for v, want := range map[string]string{
		`a" or vector(1) #`: `up{cluster="a\" or vector(1) #"} or on() up{env='a" or vector(1) #'}`,
		`x\" or vector(1)`:  `up{cluster="x\\\" or vector(1)"} or on() up{env='x\\" or vector(1)'}`,
		"a'\nb":             `up{cluster="a'\nb"} or on() up{env='a\'\nb'}`,
		"prod-1":            `up{cluster="prod-1"} or on() up{env='prod-1'}`,
	} {
		b, err := fillQuery("", `up{cluster="{{name}}"} or on() up{env='{{metadata.labels.env}}'}`, v)
		if err != nil || b.Prometheus.Query != want {
			t.Errorf("%q:\n got %v %v\nwant %s", v, b, err, want)
		}
	}
}

// TestAClusterValueOutsideAPromQLStringIsANameOrNumber: outside a string it may not add
// operators; in a raw string it may not close it; in a comment it may not end the line.
func TestAClusterValueOutsideAPromQLStringIsANameOrNumber(t *testing.T) {
	for _, tc := range []struct {
		query, v string
		ok       bool
	}{
		{`up > {{name}}`, "0.5", true},
		{`rate(x[{{name}}])`, "5m", true},
		{`up > {{name}}`, "0 or vector(1)", false},
		{"up{cluster=`{{name}}`}", "a` or vector(1) #", false},
		{"up{cluster=`{{name}}`}", `a"b`, true},
		{"up # {{name}}", "x\nor vector(1)", false},
		{"up # cluster {{name}}", `a " or b`, true},
		{`up{a="x#"} > {{name}}`, "1 or vector(1)", false},
	} {
		_, err := fillQuery("", tc.query, tc.v)
		if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), "metric.prometheus.query: cluster field {{name}}")) {
			t.Errorf("%s with %q: %v", tc.query, tc.v, err)
		}
	}
}

// TestAClusterValueNeverSetsPrometheusHost: the address is a URL (hooks.URL): a cluster
// value never its host at validate or at run, nor a leading label when the check sends a
// secret.
func TestAClusterValueNeverSetsPrometheusHost(t *testing.T) {
	for _, addr := range []string{"http://{{name}}:9090", "{{metadata.annotations.prometheus}}", "http://prom.example.com:{{metadata.labels.port}}"} {
		body := strings.Replace(metricBody, "http://prometheus.monitoring:9090", "'"+addr+"'", 1)
		if _, err := spec.Parse("spec.yaml", metricSpec("checks", body, true), targets.NewCache(8)); err == nil || !strings.Contains(err.Error(), "metric.prometheus.address") ||
			!strings.Contains(err.Error(), "fix: write the host literally; put cluster values in the path or query") {
			t.Errorf("validate %s: %v", addr, err)
		}
		if _, err := fillQuery(addr, "up", "prod-1"); err == nil || !strings.Contains(err.Error(), "metric.prometheus.address") {
			t.Errorf("run %s: %v", addr, err)
		}
	}
	body := strings.Replace(metricBody, "http://prometheus.monitoring:9090", "http://{{name}}.prom.example.com:9090", 1)
	if _, err := spec.Parse("spec.yaml", metricSpec("checks", body, true), targets.NewCache(8)); err == nil || !strings.Contains(err.Error(), "may not send a secret") {
		t.Errorf("validate, a secret to a cluster's host: %v", err)
	}
	if _, err := fillQuery("http://{{name}}.prom.example.com:9090", "up", "prod-1"); err == nil || !strings.Contains(err.Error(), "may not send a secret") {
		t.Errorf("run, a secret to a cluster's host: %v", err)
	}
	if b, err := fillQuery("http://prom.example.com:9090/c/{{name}}", "up", "attacker.example/#"); err != nil || b.Prometheus.Address != "http://prom.example.com:9090/c/attacker.example%2F%23" {
		t.Errorf("a path: %+v %v", b, err)
	}
}
