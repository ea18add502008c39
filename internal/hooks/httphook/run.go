package httphook

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// kind is `type: http` whole: its spec half (specHalf) and its run half, one request.
type kind struct{ spec.HookKind }

// Kind is `type: http`, as internal/hooks/all registers it.
var Kind hooks.Kind = kind{specHalf}

// Reach is the URL's host, and whether TLS goes unverified.
func (kind) Reach(block spec.HookBlock) hooks.Reach {
	h, ok := block.(*Block)
	if !ok {
		return hooks.Reach{}
	}
	reach := hooks.Reach{SkipsTLSVerify: h.InsecureSkipVerify}
	if u, err := url.Parse(h.URL); err == nil { // a bad URL is the run's to report
		reach.Host = u.Host
	}
	return reach
}

// Run makes one request. The expected status (default 200) is success; another status
// is Failed; anything that kept us from an answer is Errored. A hook that turns TLS
// verification off says so in its result.
func (kind) Run(ctx context.Context, r *hooks.Runner, c hooks.Call) hooks.Result {
	h, ok := c.Hook.Block.(*Block)
	if !ok {
		return hooks.NoBlock(c)
	}
	req, err := request(ctx, c, h)
	if err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: "invalid request: " + err.Error()}
	}
	res := send(ctx, r.Client(h.InsecureSkipVerify), req, h.ExpectedStatus, r.Limits().Caps.ResponseBody)
	if h.InsecureSkipVerify {
		res.Message = "TLS not verified (insecureSkipVerify): " + res.Message
	}
	return res
}

// request builds the hook's request: its method (POST unless set), headers and body, then
// the injected headers, which win (a hook cannot pose as another).
func request(ctx context.Context, c hooks.Call, h *Block) (*http.Request, error) {
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
	for k, v := range hooks.InjectedHeaders(c) {
		req.Header.Set(k, v)
	}
	return req, nil
}

// send makes the call and judges the answer against the expected status, reading at most
// limit bytes of the body.
func send(ctx context.Context, client *http.Client, req *http.Request, want int, limit int64) hooks.Result {
	resp, err := client.Do(req)
	if err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: hooks.DescribeErr(ctx, err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	switch {
	case int64(len(b)) > limit:
		return hooks.Result{Outcome: hooks.Errored, Status: resp.StatusCode, Message: fmt.Sprintf("response body over the limit of %d bytes (--%s)", limit, spec.FlagMaxResponseBody)}
	case err != nil:
		return hooks.Result{Outcome: hooks.Errored, Status: resp.StatusCode, Message: "reading the response: " + hooks.DescribeErr(ctx, err)}
	}
	if want == 0 {
		want = http.StatusOK
	}
	if resp.StatusCode != want {
		return hooks.Result{Outcome: hooks.Failed, Status: resp.StatusCode, Message: withBody(fmt.Sprintf("status %d, want %d", resp.StatusCode, want), b)}
	}
	return hooks.Result{Outcome: hooks.Succeeded, Status: resp.StatusCode, Message: withBody(fmt.Sprintf("status %d", resp.StatusCode), b)}
}

// withBody adds the response body to a message, when there is one.
func withBody(msg string, body []byte) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return msg
	}
	return msg + ": " + string(body)
}
