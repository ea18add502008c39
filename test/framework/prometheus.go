package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Prometheus is a real Prometheus (Debian's prometheus package, installed by
// hack/build-tools.sh) scraping an Exporter the test process serves, every second.
type Prometheus struct {
	// Address is its base URL, for a metric check's metric.prometheus.address.
	Address  string
	Exporter *Exporter
}

// Exporter serves /metrics in Prometheus' text format, with the gauges a test sets.
type Exporter struct {
	mu     sync.Mutex
	gauges map[string]float64 // `name{labels}` → value
}

// Set makes the gauge name with labels read value from the next scrape on.
func (x *Exporter) Set(name string, labels map[string]string, value float64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.gauges[series(name, labels)] = value
}

// Delete drops the gauge: from the next scrape on, a query for it has no series.
func (x *Exporter) Delete(name string, labels map[string]string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.gauges, series(name, labels))
}

func series(name string, labels map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, labels[k]))
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

func (x *Exporter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	x.mu.Lock()
	defer x.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	for _, s := range slices.Sorted(maps.Keys(x.gauges)) {
		fmt.Fprintf(w, "%s %s\n", s, strconv.FormatFloat(x.gauges[s], 'g', -1, 64))
	}
}

// Prometheus starts, once per Env, a Prometheus on a free loopback port (its config and
// TSDB in the Env's dir, its log with the others) scraping a fresh Exporter every second;
// it is stopped with the Env. The agent reaches it only with --hook-allow-private.
func (e *Env) Prometheus(t testing.TB) *Prometheus {
	t.Helper()
	e.prom.Do(func() { e.promVal, e.promErr = e.startPrometheus() })
	if e.promErr != nil {
		t.Fatalf("start prometheus: %v", e.promErr)
	}
	return e.promVal
}

func (e *Env) startPrometheus() (*Prometheus, error) {
	x := &Exporter{gauges: map[string]float64{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("exporter listen: %w", err)
	}
	srv := &http.Server{Handler: x, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	e.mu.Lock()
	e.closers = append(e.closers, srv.Close)
	e.mu.Unlock()
	config := fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n- job_name: e2e\n  static_configs:\n  - targets: ['%s']\n", l.Addr())
	prom, err := e.runPrometheus("prometheus", config)
	if err != nil {
		return nil, err
	}
	prom.Exporter = x
	return prom, nil
}

// runPrometheus starts a Prometheus named name with config (its dir and TSDB under the
// Env's dir, its log with the others) and waits until it is ready.
func (e *Env) runPrometheus(name, config string) (*Prometheus, error) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		return nil, fmt.Errorf("no prometheus binary (fix: run hack/build-tools.sh, which installs Debian's prometheus package): %w", err)
	}
	dir := filepath.Join(e.Dir, name)
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, fmt.Errorf("prometheus dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		return nil, fmt.Errorf("prometheus config: %w", err)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	p, err := e.Start(ProcSpec{Name: name, Path: bin, Dir: dir, Args: []string{
		"--config.file=" + filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=127.0.0.1:" + strconv.Itoa(port), "--storage.tsdb.retention.time=1h",
	}})
	if err != nil {
		return nil, err
	}
	prom := &Prometheus{Address: "http://127.0.0.1:" + strconv.Itoa(port)}
	return prom, prom.waitReady(p)
}

// ScrapingPrometheus starts a Prometheus of the test's own (name unique in the Env) that
// scrapes each job's targets every second and evaluates the rule files every second.
func (e *Env) ScrapingPrometheus(t testing.TB, name string, jobs map[string][]string, ruleFiles ...string) *Prometheus {
	t.Helper()
	var b strings.Builder
	b.WriteString("global: {scrape_interval: 1s, evaluation_interval: 1s}\n")
	if len(ruleFiles) > 0 {
		b.WriteString("rule_files:\n")
		for _, f := range ruleFiles {
			fmt.Fprintf(&b, "- %q\n", f)
		}
	}
	b.WriteString("scrape_configs:\n")
	for _, job := range slices.Sorted(maps.Keys(jobs)) {
		fmt.Fprintf(&b, "- job_name: %q\n  static_configs:\n  - targets: ['%s']\n", job, strings.Join(jobs[job], "', '"))
	}
	prom, err := e.runPrometheus(name, b.String())
	if err != nil {
		t.Fatalf("start prometheus %s: %v", name, err)
	}
	return prom
}

func (p *Prometheus) waitReady(proc *Proc) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(p.Address + "/-/ready"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if proc.Exited() {
			return fmt.Errorf("prometheus exited:\n%s", proc.Tail(4000))
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("prometheus not ready after 1m:\n%s", proc.Tail(4000))
}

// Series runs an instant query and returns its vector's label sets.
func (p *Prometheus) Series(ctx context.Context, q string) ([]map[string]string, error) {
	result, _, err := p.query(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, r := range result {
		var s struct {
			Metric map[string]string `json:"metric"`
		}
		if err := json.Unmarshal(r, &s); err != nil {
			return nil, fmt.Errorf("query %s: a sample %s", q, r)
		}
		out = append(out, s.Metric)
	}
	return out, nil
}

// Query runs an instant query and returns its vector's values (a scalar's one).
func (p *Prometheus) Query(ctx context.Context, q string) ([]float64, error) {
	result, typ, err := p.query(ctx, q)
	if err != nil {
		return nil, err
	}
	return resultValues(typ, result)
}

// query runs an instant query and returns its result and type.
func (p *Prometheus) query(ctx context.Context, q string) ([]json.RawMessage, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.Address+"/api/v1/query?query="+url.QueryEscape(q), nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string            `json:"resultType"`
			Result     []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, "", fmt.Errorf("query %s: %w", q, err)
	}
	if body.Status != "success" {
		return nil, "", fmt.Errorf("query %s: %s", q, body.Error)
	}
	return body.Data.Result, body.Data.ResultType, nil
}

func resultValues(typ string, result []json.RawMessage) ([]float64, error) {
	if typ == "scalar" {
		result = []json.RawMessage{[]byte(`{"value":[0,` + string(result[1]) + `]}`)}
	}
	var out []float64
	for _, r := range result {
		var s struct {
			Value []any `json:"value"`
		}
		if err := json.Unmarshal(r, &s); err != nil || len(s.Value) != 2 {
			return nil, fmt.Errorf("a %s sample %s", typ, r)
		}
		str, _ := s.Value[1].(string)
		v, err := strconv.ParseFloat(str, 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// WaitFor waits until query q gives want (one value, or none when want is nil): until
// Prometheus scraped what the test set.
func (p *Prometheus) WaitFor(t testing.TB, q string, want []float64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []float64
	var err error
	for ctx.Err() == nil {
		if got, err = p.Query(ctx, q); err == nil && slices.Equal(got, want) {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("prometheus: %s = %v (%v), want %v", q, got, err, want)
}
