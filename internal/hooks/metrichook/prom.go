package metrichook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// promResponse is Prometheus' HTTP API answer (/api/v1/query), as documented.
type promResponse struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// promSample is one series of a vector: its labels and [time, "value"].
type promSample struct {
	Metric map[string]string `json:"metric"`
	Value  []json.RawMessage `json:"value"`
}

// query asks Prometheus q's instant query once. It returns the result as numbers (a
// vector's in the order of its series' labels, a scalar's one), or an error when it could
// not ask or Prometheus refused.
func query(ctx context.Context, r *hooks.Runner, c hooks.Call, q PrometheusQuery) ([]float64, error) {
	req, err := promRequest(ctx, c, q)
	if err != nil {
		return nil, err
	}
	if c.Slot != nil {
		release := c.Slot(ctx)
		defer release()
	}
	resp, err := r.Client(false).Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s", hooks.DescribeErr(ctx, err))
	}
	defer resp.Body.Close()
	limit := r.Limits().Caps.ResponseBody
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	switch {
	case int64(len(b)) > limit:
		return nil, fmt.Errorf("response body over the limit of %d bytes (--%s)", limit, spec.FlagMaxResponseBody)
	case err != nil:
		return nil, fmt.Errorf("reading the response: %s", hooks.DescribeErr(ctx, err))
	}
	return decodeProm(resp.StatusCode, b)
}

// promRequest is the GET of q at Prometheus' query endpoint, with q's headers and the
// injected ones.
func promRequest(ctx context.Context, c hooks.Call, q PrometheusQuery) (*http.Request, error) {
	if q.Address == "" {
		return nil, fmt.Errorf("no Prometheus address (fix: set metric.prometheus.address, or --prometheus-address on the agent)")
	}
	base, err := url.Parse(q.Address)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("invalid Prometheus address %q (fix: an absolute http:// or https:// URL)", q.Address)
	}
	u := base.JoinPath("api", "v1", "query")
	u.RawQuery = url.Values{"query": {q.Query}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	for k, v := range q.Headers {
		req.Header.Set(k, v)
	}
	for k, v := range hooks.InjectedHeaders(c) {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept", "application/json")
	return req, nil
}

// decodeProm reads an answer of the query endpoint: a vector or a scalar; an error status,
// a matrix or a string is an error.
func decodeProm(status int, b []byte) ([]float64, error) {
	var pr promResponse
	if err := json.Unmarshal(b, &pr); err != nil {
		return nil, fmt.Errorf("status %d, not a Prometheus answer: %s", status, firstLine(b))
	}
	if pr.Status != "success" {
		return nil, fmt.Errorf("status %d, Prometheus %s: %s", status, pr.ErrorType, pr.Error)
	}
	switch pr.Data.ResultType {
	case "vector":
		var samples []promSample
		if err := json.Unmarshal(pr.Data.Result, &samples); err != nil {
			return nil, fmt.Errorf("decoding the vector: %w", err)
		}
		return vectorValues(samples)
	case "scalar":
		var pair []json.RawMessage
		if err := json.Unmarshal(pr.Data.Result, &pair); err != nil {
			return nil, fmt.Errorf("decoding the scalar: %w", err)
		}
		v, err := sampleValue(pair)
		if err != nil {
			return nil, err
		}
		return []float64{v}, nil
	}
	return nil, fmt.Errorf("a %q result (fix: write an instant query that gives a vector or a scalar)", pr.Data.ResultType)
}

// vectorValues are a vector's values, its series sorted by their labels.
func vectorValues(samples []promSample) ([]float64, error) {
	slices.SortFunc(samples, func(a, b promSample) int { return strings.Compare(labelKey(a.Metric), labelKey(b.Metric)) })
	out := make([]float64, 0, len(samples))
	for _, s := range samples {
		v, err := sampleValue(s.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// labelKey writes a label set in label-name order: {a="1",b="2"}.
func labelKey(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s=%q,", k, m[k])
	}
	return b.String()
}

// sampleValue reads [time, "value"]; Prometheus writes NaN and ±Inf as strings too.
func sampleValue(pair []json.RawMessage) (float64, error) {
	if len(pair) != 2 {
		return 0, fmt.Errorf("a sample of %d elements, want [time, value]", len(pair))
	}
	var s string
	if err := json.Unmarshal(pair[1], &s); err != nil {
		return 0, fmt.Errorf("a sample value that is not a string: %s", pair[1])
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN(), fmt.Errorf("a sample value %q that is not a number", s)
	}
	return v, nil
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
