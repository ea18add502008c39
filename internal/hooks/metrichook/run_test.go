package metrichook

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// The runner's names, as the tests moved here from internal/hooks read them.
type (
	Call    = hooks.Call
	Outcome = hooks.Outcome
	Limits  = hooks.Limits
	Backoff = hooks.Backoff
	Result  = hooks.Result
)

const (
	Succeeded    = hooks.Succeeded
	Failed       = hooks.Failed
	Errored      = hooks.Errored
	Inconclusive = hooks.Inconclusive
)

// New is a runner of l.
func New(l Limits) *hooks.Runner { return hooks.New(l) }

// local is a runner that may reach the test servers on loopback.
func local() *hooks.Runner { return New(Limits{AllowPrivate: true}) }

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func mustConditions(t *testing.T, success, failure string) conditions {
	t.Helper()
	c, err := compileConditions(&Block{SuccessCondition: success, FailureCondition: failure})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAMeasurementIsJudgedByItsConditions(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name             string
		success, failure string
		values           []float64
		want             Outcome
		why              string
	}{
		{"success holds", "result[0] >= 0.99", "", []float64{0.995}, Succeeded, ""},
		{"success false, no failureCondition", "result[0] >= 0.99", "", []float64{0.9}, Failed, "failed: result[0] >= 0.99"},
		{"failure holds, whatever success says", "result[0] >= 0.5", "result[0] < 0.95", []float64{0.9}, Failed, "failed: result[0] < 0.95"},
		{"neither holds", "result[0] >= 0.99", "result[0] < 0.95", []float64{0.97}, Inconclusive, "neither condition held"},
		{"no data", "result[0] >= 0.99", "", nil, Inconclusive, "no data"},
		{"NaN", "result[0] >= 0.99", "", []float64{nan}, Inconclusive, "NaN"},
		{"NaN judged by isNaN", "result[0] >= 0.99", "isNaN(result[0])", []float64{nan}, Failed, "failed: isNaN(result[0])"},
		{"isInf", "!isInf(result[0])", "", []float64{math.Inf(1)}, Failed, "failed: !isInf(result[0])"},
		{"fewer series than the condition reads", "result[1] > 0", "", []float64{1}, Inconclusive, "result[1] > 0"},
		{"every series", "all(result, # >= 0.99)", "", []float64{0.999, 0.995}, Succeeded, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mustConditions(t, c.success, c.failure).judge(c.values)
			if got.outcome != c.want || !strings.Contains(got.why, c.why) {
				t.Fatalf("got %s %q, want %s %q", got.outcome, got.why, c.want, c.why)
			}
		})
	}
}

func TestMeasurementsAreCountedAgainstTheLimits(t *testing.T) {
	S, F, I, E := Succeeded, Failed, Inconclusive, Errored
	cases := []struct {
		name                     string
		count, failLim, inconLim int
		seq                      []Outcome
		want                     Outcome
		after                    int // measurements taken when decided
		msg                      string
	}{
		{"count successes", 3, 0, 0, []Outcome{S, S, S, S}, S, 3, "3/3 measured: 0.5, 0.5, 0.5"},
		{"a failure over failureLimit 0 stops at once", 5, 0, 0, []Outcome{S, F, S}, F, 2, "2/5 measured: 0.5, 0.5 (failed: x; 1 failed"},
		{"failureLimit tolerates", 4, 1, 0, []Outcome{F, S, S, S}, S, 4, "4/4 measured"},
		{"failureLimit exceeded", 4, 1, 0, []Outcome{F, S, F}, F, 3, "3/4 measured"},
		{"inconclusive over its limit", 5, 0, 1, []Outcome{I, S, I}, I, 3, "inconclusive: y"},
		{"errors do not count towards count", 2, 0, 0, []Outcome{E, S, E, S}, S, 4, "2/2 measured"},
		{"more than 4 errors in a row", 3, 0, 0, []Outcome{S, E, E, E, E, E}, E, 6, "error: z"},
		{"4 errors in a row are tolerated", 2, 0, 0, []Outcome{E, E, E, E, S, S}, S, 6, "4 errored"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tl := &tally{m: &Block{Count: c.count, FailureLimit: c.failLim, InconclusiveLimit: c.inconLim}}
			why := map[Outcome]string{Failed: "failed: x", Inconclusive: "y", Errored: "z"}
			var got Outcome
			n := 0
			for _, o := range c.seq {
				n++
				out, done := tl.add(measurement{outcome: o, values: []float64{0.5}, why: why[o]})
				if done {
					got = out
					break
				}
			}
			if got != c.want || n != c.after || !strings.Contains(tl.message(), c.msg) {
				t.Fatalf("got %s after %d: %q; want %s after %d: %q", got, n, tl.message(), c.want, c.after, c.msg)
			}
		})
	}
}

func TestTheMessageKeepsTheLatestValues(t *testing.T) {
	tl := &tally{m: &Block{}}
	for i := range 15 {
		tl.add(measurement{outcome: Succeeded, values: []float64{float64(i)}})
	}
	tl.add(measurement{outcome: Succeeded, values: []float64{0.25, 0.5}})
	if got := tl.message(); got != "16 measured through the soak: …, 6, 7, 8, 9, 10, 11, 12, 13, 14, [0.25 0.5]" {
		t.Fatal(got)
	}
	if (&tally{m: &Block{}}).final() != Errored {
		t.Fatal("a run without a value is Errored")
	}
}

func TestPrometheusAnswersAreDecoded(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		want   string
		err    string
	}{
		{"a vector, in label order", 200, `{"status":"success","data":{"resultType":"vector","result":[` +
			`{"metric":{"cluster":"c2"},"value":[1700000000.1,"0.5"]},{"metric":{"cluster":"c1"},"value":[1700000000.1,"0.999"]}]}}`, "[0.999 0.5]", ""},
		{"a scalar", 200, `{"status":"success","data":{"resultType":"scalar","result":[1700000000,"1"]}}`, "[1]", ""},
		{"an empty vector", 200, `{"status":"success","data":{"resultType":"vector","result":[]}}`, "[]", ""},
		{"NaN and Inf", 200, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"1"},"value":[1,"NaN"]},{"metric":{"a":"2"},"value":[1,"+Inf"]}]}}`, "[NaN +Inf]", ""},
		{"an error answer", 400, `{"status":"error","errorType":"bad_data","error":"parse error at char 5"}`, "", "status 400, Prometheus bad_data: parse error at char 5"},
		{"not Prometheus", 502, "<html>bad gateway</html>", "", "status 502, not a Prometheus answer: <html>bad gateway</html>"},
		{"a matrix", 200, `{"status":"success","data":{"resultType":"matrix","result":[]}}`, "", `a "matrix" result (fix: write an instant query`},
		{"a bad value", 200, `{"status":"success","data":{"resultType":"scalar","result":[1,"lots"]}}`, "", `"lots" that is not a number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decodeProm(c.status, []byte(c.body))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != c.want {
				t.Fatalf("got %v, %v; want %s", got, err, c.want)
			}
		})
	}
}

// fakeProm is a Prometheus query endpoint answering a value per call from values (the last
// one again when they run out; "" for an empty vector, "err" for an error answer).
type fakeProm struct {
	mu      sync.Mutex
	values  []string
	queries []string
	auth    string
}

func (p *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queries, p.auth = append(p.queries, r.URL.Path+"?"+r.URL.Query().Get("query")), r.Header.Get("Authorization")
	v := p.values[min(len(p.queries), len(p.values))-1]
	switch v {
	case "":
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
	case "err":
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"status":"error","errorType":"unavailable","error":"not ready"}`)
	default:
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,%q]}]}}`, v)
	}
}

func metricCall(address string, count int, until time.Time) Call {
	return Call{Rollout: "guestbook", Namespace: "argocd", Phase: "prod", Revision: "r2", IdempotencyKey: "guestbook/r2/prod/check/rate", Place: "check", Until: until,
		Hook: spec.Hook{Name: "rate", Type: "metric", Timeout: 2 * time.Second, FailurePolicy: "fail", Block: &Block{
			Prometheus: PrometheusQuery{Address: address, Query: `sum(rate(x{cluster="c1"}[5m]))`, Headers: map[string]string{"Authorization": "Bearer s3cret"}},
			Interval:   20 * time.Millisecond, Count: count, SuccessCondition: "result[0] >= 0.99", FailureCondition: "result[0] < 0.95"}}}
}

func TestMetricRuns(t *testing.T) {
	cases := []struct {
		name   string
		values []string
		count  int
		until  time.Duration // a during-soak run: until now+until
		want   Outcome
		msg    string
		asked  int
	}{
		{"count measurements", []string{"0.999", "0.995", "0.991"}, 3, 0, Succeeded, "3/3 measured: 0.999, 0.995, 0.991", 3},
		{"a failure stops at once", []string{"0.999", "0.5", "0.999"}, 3, 0, Failed, "2/3 measured: 0.999, 0.5 (failed: result[0] < 0.95", 2},
		{"no data is inconclusive", []string{""}, 3, 0, Inconclusive, "1/3 measured: [] (inconclusive: no data", 1},
		{"neither condition", []string{"0.97"}, 3, 0, Inconclusive, "1/3 measured: 0.97 (inconclusive: neither condition held", 1},
		{"Prometheus erroring", []string{"err"}, 3, 0, Errored, "error: status 503, Prometheus unavailable: not ready", 5},
		{"through the soak", []string{"0.999"}, 0, 90 * time.Millisecond, Succeeded, "measured through the soak: 0.999, 0.999", 0},
		{"a soak already over measures once", []string{"0.999"}, 0, -time.Second, Succeeded, "1 measured through the soak: 0.999", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &fakeProm{values: c.values}
			srv := serve(t, p.ServeHTTP)
			var until time.Time
			if c.until != 0 {
				until = time.Now().Add(c.until)
			}
			call := metricCall(srv.URL+"/prom", c.count, until)
			call.Secrets = []string{"s3cret"}
			res := local().Run(context.Background(), call)
			if res.Outcome != c.want || !strings.Contains(res.Message, c.msg) || (c.asked > 0 && len(p.queries) != c.asked) {
				t.Fatalf("got %s %q after %d queries; want %s %q after %d", res.Outcome, res.Message, len(p.queries), c.want, c.msg, c.asked)
			}
			if p.queries[0] != `/prom/api/v1/query?sum(rate(x{cluster="c1"}[5m]))` || p.auth != "Bearer s3cret" {
				t.Fatalf("asked %q with %q", p.queries[0], p.auth)
			}
		})
	}
}

func TestAMetricCheckIsRefusedAPrivateAddressUnlessAllowed(t *testing.T) {
	p := &fakeProm{values: []string{"1"}}
	srv := serve(t, p.ServeHTTP)
	call := metricCall(srv.URL, 1, time.Time{})
	call.Hook.Block.(*Block).Interval = time.Millisecond
	res := New(Limits{}).Run(context.Background(), call)
	if res.Outcome != Errored || !strings.Contains(res.Message, "loopback or private") || len(p.queries) != 0 {
		t.Fatalf("got %s %q, %d queries", res.Outcome, res.Message, len(p.queries))
	}
	meta := metricCall("http://169.254.169.254", 1, time.Time{})
	meta.Hook.Block.(*Block).Interval = time.Millisecond
	if res := local().Run(context.Background(), meta); res.Outcome != Errored || !strings.Contains(res.Message, "metadata") {
		t.Fatalf("metadata: %s %q", res.Outcome, res.Message)
	}
}

func TestAMetricCheckWithoutAnAddressAsksTheAgentsPrometheus(t *testing.T) {
	p := &fakeProm{values: []string{"1"}}
	srv := serve(t, p.ServeHTTP)
	r := New(Limits{AllowPrivate: true, Kinds: []any{Options{PrometheusAddress: srv.URL}}})
	call := metricCall("", 1, time.Time{})
	if reach := r.Reach(call.Hook); !reach.PerRequest || !strings.HasPrefix(srv.URL, "http://"+reach.Host) {
		t.Fatalf("reach %+v", reach)
	}
	if res := r.Run(context.Background(), call); res.Outcome != Succeeded {
		t.Fatalf("%s %q", res.Outcome, res.Message)
	}
	if res := local().Run(context.Background(), call); res.Outcome != Errored || !strings.Contains(res.Message, "--prometheus-address") {
		t.Fatalf("no address anywhere: %s %q", res.Outcome, res.Message)
	}
}

func TestAMetricRunTakesAHostSlotPerQuery(t *testing.T) {
	p := &fakeProm{values: []string{"1"}}
	srv := serve(t, p.ServeHTTP)
	call := metricCall(srv.URL, 3, time.Time{})
	var taken, released int
	call.Slot = func(context.Context) func() { taken++; return func() { released++ } }
	if res := local().Run(context.Background(), call); res.Outcome != Succeeded || taken != 3 || released != 3 {
		t.Fatalf("%s: %d taken, %d released", res.Outcome, taken, released)
	}
}

func TestRetryDoesNotRetryAnInconclusiveMetric(t *testing.T) {
	p := &fakeProm{values: []string{""}}
	srv := serve(t, p.ServeHTTP)
	call := metricCall(srv.URL, 1, time.Time{})
	call.Hook.FailurePolicy = "retry"
	attempts := 0
	res := local().RunAttempts(context.Background(), call, Backoff{Attempts: 3, Initial: time.Millisecond, Max: time.Millisecond, For: time.Minute}, func(n int, _ Result) { attempts = n })
	if res.Outcome != Inconclusive || attempts != 1 {
		t.Fatalf("%s after %d attempts", res.Outcome, attempts)
	}
}
