package hooks

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestRunnerCaps: a hook over the runner's Caps is not run (Errored, naming the setting);
// raised Caps run it; the response body cap is the Caps' too.
func TestRunnerCaps(t *testing.T) {
	calls := 0
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request) { calls++; _, _ = w.Write([]byte("0123456789abcdef")) })
	long := httpCall(srv.URL)
	long.Hook.Timeout = 20 * time.Minute
	for _, c := range []struct {
		name string
		caps spec.Limits
		call Call
		out  Outcome
		want string
		runs int
	}{
		{"a timeout over the default is not run", spec.Limits{}, long, Errored, "not run: timeout 20m is over --max-http-timeout (10m) (fix: raise --max-http-timeout", 0},
		{"a raised cap runs it", spec.Limits{HTTPTimeout: time.Hour}, long, Succeeded, "status 200", 1},
		{"headers over the cap", spec.Limits{Headers: 1}, withHeaders(httpCall(srv.URL), 2), Errored, "http.headers has 2 headers, over --max-headers (1)", 0},
		{"a body over the cap", spec.Limits{ResponseBody: 8}, httpCall(srv.URL), Errored, "response body over the limit of 8 bytes (--max-response-body)", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls = 0
			res := New(Limits{AllowPrivate: true, Caps: c.caps}).Run(context.Background(), c.call)
			if res.Outcome != c.out || !strings.Contains(res.Message, c.want) || calls != c.runs {
				t.Fatalf("got %s %q after %d calls, want %s containing %q after %d", res.Outcome, res.Message, calls, c.out, c.want, c.runs)
			}
		})
	}
}

func withHeaders(c Call, n int) Call {
	h := *c.Hook.Block.(*spec.HTTPHook)
	h.Headers = map[string]string{}
	for i := range n {
		h.Headers[string(rune('A'+i))] = "x"
	}
	c.Hook.Block = &h
	return c
}

// TestRunTimeoutIsNeverCut: an attempt may take the hook's timeout as declared, even over
// seed 000's default limits (the caps decide whether it runs, never how long).
func TestRunTimeoutIsNeverCut(t *testing.T) {
	for h, want := range map[spec.Hook]time.Duration{
		{Type: "command", Timeout: 24 * time.Hour}: 24 * time.Hour,
		{Type: "http", Timeout: time.Hour}:         time.Hour,
		{Type: "http"}:                             spec.DefaultHookTimeout,
	} {
		if got := RunTimeout(h); got != want {
			t.Errorf("%+v: %s, want %s", h, got, want)
		}
	}
}
