package spec

import (
	"maps"
	"net/url"
	"strings"
	"time"
)

// Default limits of http hooks (seed 000); an installation sets its own (Limits).
const (
	MaxHTTPTimeout = 10 * time.Minute
	MaxHeaders     = 50
)

// HTTPKind is `type: http`: one request, judged by its status.
var HTTPKind = newKind[HTTPHook]("http", MaxHTTPTimeout, "use at most 10m", parseHTTP)

// HTTPHook is the http block of a hook.
type HTTPHook struct {
	URL                string            `json:"url"`
	Method             string            `json:"method,omitempty"`
	Headers            map[string]string `json:"headers,omitempty"`
	Body               string            `json:"body,omitempty"`
	ExpectedStatus     int               `json:"expectedStatus,omitempty"`
	InsecureSkipVerify bool              `json:"insecureSkipVerify,omitempty"`
}

// Fill fills the URL, method, header values and body.
func (h *HTTPHook) Fill(f func(string) string) HookBlock {
	c := *h
	c.URL, c.Method, c.Body = f(h.URL), f(h.Method), f(h.Body)
	c.Headers = maps.Clone(h.Headers)
	for k, v := range c.Headers {
		c.Headers[k] = f(v)
	}
	return &c
}

// parseHTTP reads the http block: a check GETs unless it says otherwise, a hook POSTs.
func parseHTTP(d *dec, hn hookNode) *HTTPHook {
	n := d.required(hn.fields, hn.node, hn.path, "http", "add http.url")
	if n == nil {
		return nil
	}
	path, method := hn.path+".http", "POST"
	if hn.check {
		method = "GET"
	}
	f := d.fields(n, path, "url", "method", "headers", "body", "expectedStatus", "insecureSkipVerify")
	h := &HTTPHook{
		URL:     d.str(d.required(f, n, path, "url", "set the URL to call"), path+".url"),
		Method:  d.oneOf(f["method"], path+".method", method, "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"),
		Headers: d.strMap(f["headers"], path+".headers"),
		Body:    d.str(f["body"], path+".body"),
	}
	if h.URL != "" && !validURL(h.URL) {
		d.fail(f["url"], path+".url", "write an absolute http:// or https:// URL", "invalid URL %q", h.URL)
	}
	h.ExpectedStatus = 200
	if v, ok := d.integer(f["expectedStatus"], path+".expectedStatus"); ok {
		if v < 100 || v > 599 {
			d.fail(f["expectedStatus"], path+".expectedStatus", "use an HTTP status from 100 to 599", "out of range: %d", v)
		}
		h.ExpectedStatus = v
	}
	h.InsecureSkipVerify = d.boolean(f["insecureSkipVerify"], path+".insecureSkipVerify")
	return h
}

// validURL accepts absolute http(s) URLs; a templated URL ({{name}} and the like) is
// checked for its scheme only, as the rest is known per cluster; one that starts with a
// template (the whole URL from a cluster annotation) is checked when it runs (the runner
// speaks http and https only).
func validURL(s string) bool {
	if strings.HasPrefix(strings.TrimSpace(s), "{{") {
		return true
	}
	if strings.Contains(s, "{{") {
		return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
