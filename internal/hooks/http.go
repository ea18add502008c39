package hooks

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// httpKind runs `type: http` hooks.
type httpKind struct{ spec.HookKind }

// Reach is the URL's host, and whether TLS goes unverified.
func (httpKind) Reach(block spec.HookBlock) Reach {
	h, ok := block.(*spec.HTTPHook)
	if !ok {
		return Reach{}
	}
	reach := Reach{SkipsTLSVerify: h.InsecureSkipVerify}
	if u, err := url.Parse(h.URL); err == nil { // a bad URL is the run's to report
		reach.Host = u.Host
	}
	return reach
}

// Run makes one request. The expected status (default 200) is success; another status
// is Failed; anything that kept us from an answer is Errored. A hook that turns TLS
// verification off says so in its result.
func (httpKind) Run(ctx context.Context, r *Runner, c Call) Result {
	h, ok := c.Hook.Block.(*spec.HTTPHook)
	if !ok {
		return NoBlock(c)
	}
	req, err := request(ctx, c, h)
	if err != nil {
		return Result{Outcome: Errored, Message: "invalid request: " + err.Error()}
	}
	client := r.secure
	if h.InsecureSkipVerify {
		client = r.insecure
	}
	res := r.send(ctx, client, req, h.ExpectedStatus)
	if h.InsecureSkipVerify {
		res.Message = "TLS not verified (insecureSkipVerify): " + res.Message
	}
	return res
}

// request builds the hook's request: its method (POST unless set), headers and body, then
// the injected headers, which win (a hook cannot pose as another).
func request(ctx context.Context, c Call, h *spec.HTTPHook) (*http.Request, error) {
	method := h.Method
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader
	if h.Body != "" {
		body = strings.NewReader(h.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.URL, body)
	if err != nil {
		return nil, err
	}
	for k, v := range h.Headers {
		req.Header.Set(k, v)
	}
	for k, v := range InjectedHeaders(c) {
		req.Header.Set(k, v)
	}
	return req, nil
}

// send makes the call and judges the answer against the expected status.
func (r *Runner) send(ctx context.Context, client *http.Client, req *http.Request, want int) Result {
	resp, err := client.Do(req)
	if err != nil {
		return Result{Outcome: Errored, Message: DescribeErr(ctx, err)}
	}
	defer resp.Body.Close()
	limit := r.limits.Caps.ResponseBody
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	switch {
	case int64(len(b)) > limit:
		return Result{Outcome: Errored, Status: resp.StatusCode, Message: fmt.Sprintf("response body over the limit of %d bytes (--%s)", limit, spec.FlagMaxResponseBody)}
	case err != nil:
		return Result{Outcome: Errored, Status: resp.StatusCode, Message: "reading the response: " + DescribeErr(ctx, err)}
	}
	if want == 0 {
		want = http.StatusOK
	}
	if resp.StatusCode != want {
		return Result{Outcome: Failed, Status: resp.StatusCode, Message: withBody(fmt.Sprintf("status %d, want %d", resp.StatusCode, want), b)}
	}
	return Result{Outcome: Succeeded, Status: resp.StatusCode, Message: withBody(fmt.Sprintf("status %d", resp.StatusCode), b)}
}

// withBody adds the response body to a message, when there is one.
func withBody(msg string, body []byte) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return msg
	}
	return msg + ": " + string(body)
}
