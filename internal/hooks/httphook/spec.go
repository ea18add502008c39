package httphook

import (
	"maps"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// specHalf is `type: http`'s spec half: one request, judged by its status. Its timeout
// limit is the installation's --max-http-timeout.
var specHalf = spec.NewHookKind[Block](spec.HookKindDef[*Block]{
	Name: "http", MaxTimeout: spec.MaxHTTPTimeout, TimeoutFix: "use at most 10m",
	TimeoutSetting: spec.FlagMaxHTTPTimeout, LimitTimeout: func(l spec.Limits) time.Duration { return l.HTTPTimeout },
	Parse: parse,
})

// Block is the http block of a hook.
type Block struct {
	URL                string            `json:"url"`
	Method             string            `json:"method,omitempty"`
	Headers            map[string]string `json:"headers,omitempty"`
	Body               string            `json:"body,omitempty"`
	ExpectedStatus     int               `json:"expectedStatus,omitempty"`
	InsecureSkipVerify bool              `json:"insecureSkipVerify,omitempty"`
}

// Fill fills the URL, method, header values and body.
func (h *Block) Fill(f func(string) string) spec.HookBlock {
	c := *h
	c.URL, c.Method, c.Body = f(h.URL), f(h.Method), f(h.Body)
	c.Headers = maps.Clone(h.Headers)
	for k, v := range c.Headers {
		c.Headers[k] = f(v)
	}
	return &c
}

// parse reads the http block: a check GETs unless it says otherwise, a hook POSTs.
func parse(r *spec.HookReader) *Block {
	n := r.Block("add http.url")
	if n == nil {
		return nil
	}
	path, method := r.Path()+".http", "POST"
	if r.Check() {
		method = "GET"
	}
	f := r.Fields(n, path, "url", "method", "headers", "body", "expectedStatus", "insecureSkipVerify")
	h := &Block{
		URL:     r.Str(r.Required(f, n, path, "url", "set the URL to call"), path+".url"),
		Method:  r.OneOf(f["method"], path+".method", method, "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"),
		Headers: r.StrMap(f["headers"], path+".headers"),
		Body:    r.Str(f["body"], path+".body"),
	}
	r.Mark("http.headers", f["headers"])
	if h.URL != "" && !spec.ValidHookURL(h.URL) {
		r.Fail(f["url"], path+".url", "write an absolute http:// or https:// URL", "invalid URL %q", h.URL)
	}
	h.ExpectedStatus = 200
	if v, ok := r.Integer(f["expectedStatus"], path+".expectedStatus"); ok {
		if v < 100 || v > 599 {
			r.Fail(f["expectedStatus"], path+".expectedStatus", "use an HTTP status from 100 to 599", "out of range: %d", v)
		}
		h.ExpectedStatus = v
	}
	h.InsecureSkipVerify = r.Boolean(f["insecureSkipVerify"], path+".insecureSkipVerify")
	return h
}

// Violations are the ways the hook asks for more than l allows beyond its timeout: more
// headers than --max-headers.
func (h *Block) Violations(l spec.Limits) []spec.Violation {
	if len(h.Headers) > l.Headers {
		return []spec.Violation{spec.CountViolation("http.headers", "headers", len(h.Headers), l.Headers, spec.FlagMaxHeaders, "send fewer headers")}
	}
	return nil
}
