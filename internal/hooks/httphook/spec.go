package httphook

import (
	"maps"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
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
func (h *Block) Fill(f func(string) string) spec.HookBlock { return h.FillFields(hooks.AnyField(f)) }

// FillFields fills the URL (a cluster value never sets its host: hooks.URL), the method,
// the header values (hooks.Header) and the body (JSON-escaped when it is JSON: hooks.Body).
func (h *Block) FillFields(f func(hooks.Field, string) string) spec.HookBlock {
	c := *h
	c.URL = f(hooks.Field{Path: "http.url", In: hooks.URL}, h.URL)
	c.Method = f(hooks.Field{Path: "http.method", In: hooks.Header}, h.Method)
	c.Body = f(hooks.Field{Path: "http.body", In: hooks.Body}, h.Body)
	c.Headers = maps.Clone(h.Headers)
	for k, v := range c.Headers {
		c.Headers[k] = f(hooks.Field{Path: "http.headers." + k, In: hooks.Header}, v)
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
	if problem, fix := hooks.TemplateProblem(hooks.URL, h.URL); problem != "" {
		r.Fail(f["url"], path+".url", fix, "%s", problem)
	}
	if hooks.ClusterInHost(h.URL) && refersToSecret(h) {
		r.Fail(f["url"], path+".url", "write the host literally to send a secret; put cluster values in the path or query",
			"a cluster field sets the host, so the hook may not send a secret to it")
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

// refersToSecret reports whether any field of h holds a secret reference.
func refersToSecret(h *Block) bool {
	found := false
	h.Fill(func(s string) string {
		found = found || spec.RefersToSecret(s)
		return s
	})
	return found
}

// Violations are the ways the hook asks for more than l allows beyond its timeout: more
// headers than --max-headers.
func (h *Block) Violations(l spec.Limits) []spec.Violation {
	if len(h.Headers) > l.Headers {
		return []spec.Violation{spec.CountViolation("http.headers", "headers", len(h.Headers), l.Headers, spec.FlagMaxHeaders, "send fewer headers")}
	}
	return nil
}
