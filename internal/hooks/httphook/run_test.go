package httphook

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

func init() { hooks.Register(Kind) } // as internal/hooks/all does, which this package's tests cannot import

func httpCall(url string) hooks.Call {
	return hooks.Call{Rollout: "guestbook", Namespace: "argocd", Phase: "prod", Revision: "r2", IdempotencyKey: "guestbook/r2/prod/notify", Place: "post",
		Hook: spec.Hook{Name: "notify", Type: "http", Timeout: 5 * time.Second, FailurePolicy: "fail",
			Block: &Block{URL: url, Method: "POST", Body: `{"phase":"prod"}`, ExpectedStatus: 200}}}
}

// local is a runner that may reach the test servers on loopback.
func local() *hooks.Runner { return hooks.New(hooks.Limits{AllowPrivate: true}) }

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPHooks(t *testing.T) {
	var seen http.Header
	ok := serve(t, func(w http.ResponseWriter, r *http.Request) { seen = r.Header.Clone(); io.WriteString(w, "fine") })
	wrong := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusConflict)
		io.WriteString(w, "change window closed")
	})
	slowBody := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "100")
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		time.Sleep(3 * time.Second)
	})
	big := serve(t, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(strings.Repeat("x", 2<<20))) })
	lying := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "1000000000") // a gigabyte promised, 2 MiB sent, then silence
		w.Write([]byte(strings.Repeat("x", 2<<20)))
		w.(http.Flusher).Flush()
		time.Sleep(3 * time.Second)
	})
	var loops int32
	var loop *httptest.Server
	loop = serve(t, func(w http.ResponseWriter, r *http.Request) {
		atomic.AddInt32(&loops, 1)
		http.Redirect(w, r, loop.URL+"/again", http.StatusFound)
	})
	toMetadata := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	cases := []struct {
		name    string
		call    func() hooks.Call
		want    hooks.Outcome
		message string
	}{
		{"a 2xx is success", func() hooks.Call { return httpCall(ok.URL) }, hooks.Succeeded, "status 200: fine"},
		{"another status is a gate's no, not an error", func() hooks.Call { return httpCall(wrong.URL) }, hooks.Failed, "status 409, want 200: change window closed"},
		{"a body still coming at the timeout is an error", func() hooks.Call {
			c := httpCall(slowBody.URL)
			c.Hook.Timeout = 500 * time.Millisecond
			return c
		}, hooks.Errored, "timed out"},
		{"a body past the cap is an error", func() hooks.Call { return httpCall(big.URL) }, hooks.Errored, "over the limit of 1048576 bytes"},
		{"a lying Content-Length does not make us read past the cap", func() hooks.Call { return httpCall(lying.URL) }, hooks.Errored, "over the limit of 1048576 bytes"},
		{"a redirect loop ends after 5 redirects", func() hooks.Call { return httpCall(loop.URL) }, hooks.Errored, "more than 5 redirects"},
		{"a redirect to a metadata address is refused", func() hooks.Call { return httpCall(toMetadata.URL) }, hooks.Errored, "169.254.169.254 is a cloud metadata address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := local().Run(context.Background(), c.call())
			if res.Outcome != c.want || !strings.Contains(res.Message, c.message) {
				t.Fatalf("got %s %q, want %s containing %q", res.Outcome, res.Message, c.want, c.message)
			}
		})
	}
	for k, v := range map[string]string{"User-Agent": hooks.UserAgent, "X-Appset-Name": "guestbook", "X-Appset-Namespace": "argocd",
		"X-Hook-Name": "notify", "X-Hook-Type": "post", "X-Hook-Kind": "http", "Idempotency-Key": "guestbook/r2/prod/notify"} {
		if seen.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, seen.Get(k), v)
		}
	}
	if n := atomic.LoadInt32(&loops); n != 6 {
		t.Errorf("the loop was followed %d times, want the first call and 5 redirects", n)
	}
}

func TestRetryRunsAgainWithBackoffUntilSuccess(t *testing.T) {
	var calls int32
	var keys []string
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		if atomic.AddInt32(&calls, 1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	c := httpCall(srv.URL)
	c.Hook.FailurePolicy = "retry"
	var seen []hooks.Outcome
	res := local().RunAttempts(context.Background(), c, hooks.Backoff{Attempts: 5, Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, For: time.Minute},
		func(_ int, r hooks.Result) { seen = append(seen, r.Outcome) })
	if res.Outcome != hooks.Succeeded || fmt.Sprint(seen) != "[Failed Failed Succeeded]" {
		t.Fatalf("%s after %v", res.Outcome, seen)
	}
	if keys[0] != keys[1] || keys[1] != keys[2] {
		t.Fatalf("the idempotency key is stable across attempts: %v", keys)
	}
	c.Hook.FailurePolicy = "fail"
	atomic.StoreInt32(&calls, 0)
	if res := local().RunAttempts(context.Background(), c, hooks.DefaultBackoff, nil); res.Outcome != hooks.Failed || atomic.LoadInt32(&calls) != 1 {
		t.Fatalf("without retry one attempt: %s after %d", res.Outcome, calls)
	}
}

// TestRetryStopsWhenItsTimeIsSpent: a hook that keeps failing is retried while its retry
// time lasts, counted from the run's start: a run whose time is spent ends after the
// attempt in hand; one with time left goes on (here until the test's cap of attempts).
func TestRetryStopsWhenItsTimeIsSpent(t *testing.T) {
	var calls int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		atomic.AddInt32(&calls, 1)
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c := httpCall(srv.URL)
	c.Hook.FailurePolicy, c.Hook.RetryFor = "retry", time.Hour
	c.Started = time.Now().Add(-time.Hour) // its hour is spent (an agent restarted late)
	b := hooks.Backoff{Initial: 10 * time.Millisecond, Max: 10 * time.Millisecond, For: time.Minute}
	if res := local().RunAttempts(context.Background(), c, b, nil); res.Outcome != hooks.Failed || atomic.LoadInt32(&calls) != 1 {
		t.Fatalf("%s after %d attempts", res.Outcome, calls)
	}
	atomic.StoreInt32(&calls, 0)
	c.Started, b.Attempts = time.Now(), 4
	if res := local().RunAttempts(context.Background(), c, b, nil); res.Outcome != hooks.Failed || atomic.LoadInt32(&calls) != 4 {
		t.Fatalf("with time left: %s after %d attempts", res.Outcome, calls)
	}
}

func TestTLSIsVerifiedUnlessTheHookSaysOtherwise(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	res := local().Run(context.Background(), httpCall(srv.URL))
	if res.Outcome != hooks.Errored || !strings.Contains(res.Message, "certificate") {
		t.Fatalf("an unknown CA: %s %q", res.Outcome, res.Message)
	}
	c := httpCall(srv.URL)
	c.Hook.Block.(*Block).InsecureSkipVerify = true
	if res := local().Run(context.Background(), c); res.Outcome != hooks.Succeeded || !strings.HasPrefix(res.Message, "TLS not verified") {
		t.Fatalf("insecureSkipVerify: %s %q", res.Outcome, res.Message)
	}
}

func TestSSRFTable(t *testing.T) {
	open := serve(t, func(http.ResponseWriter, *http.Request) {})
	port := open.URL[strings.LastIndex(open.URL, ":")+1:]
	cases := []struct {
		name, url string
		private   bool
		want      string
	}{
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/", true, "cloud metadata address"},
		{"another link-local address", "http://169.254.1.1/", true, "link-local"},
		{"IPv6 link-local", "http://[fe80::1]:" + port + "/", true, "link-local"},
		{"AWS IPv6 metadata, even with private ranges allowed", "http://[fd00:ec2::254]/", true, "cloud metadata"},
		{"loopback when private ranges are not allowed", open.URL, false, "loopback or private"},
		{"a hostname resolving to a refused address", "http://localhost:" + port + "/", false, "127.0.0.1 is loopback or private"},
		{"a private range when not allowed", "http://10.1.2.3/", false, "loopback or private"},
		{"the unspecified address", "http://0.0.0.0:" + port + "/", true, "not a unicast address"},
		{"the IPv6 unspecified address", "http://[::]:" + port + "/", true, "not a unicast address"},
		{"IPv4-mapped IPv6 metadata", "http://[::ffff:169.254.169.254]/", true, "cloud metadata address"},
		{"a decimal IPv4 literal", "http://2852039166/", true, "numeric host"},
		{"an octal IPv4 literal", "http://0251.0376.0251.0376/", true, "numeric host"},
		{"a hex IPv4 literal", "http://0x7f.1/", true, "numeric host"},
		{"a redirect to the metadata address", serve(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		}).URL, true, "cloud metadata address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := hooks.New(hooks.Limits{AllowPrivate: c.private}).Run(context.Background(), httpCall(c.url))
			if res.Outcome != hooks.Errored || !strings.Contains(res.Message, c.want) {
				t.Fatalf("got %s %q, want Errored with %q", res.Outcome, res.Message, c.want)
			}
		})
	}
}

func TestAURLFromAnAnnotationMustStillBeHTTP(t *testing.T) {
	res := local().Run(context.Background(), httpCall("file:///etc/passwd"))
	if res.Outcome != hooks.Errored || !strings.Contains(res.Message, "unsupported protocol scheme") {
		t.Fatalf("%s %q", res.Outcome, res.Message)
	}
}

func TestAnEmptyBodyLeavesNoDanglingColon(t *testing.T) {
	if got := withBody("status 200", []byte(" \n")); got != "status 200" {
		t.Fatalf("%q", got)
	}
	if got := withBody("status 200", []byte("ok")); got != "status 200: ok" {
		t.Fatalf("%q", got)
	}
}

// TestSecretsNeverLeaveAnHTTPResult: a secret in the URL is not in the message of a call
// that could not reach it.
func TestSecretsNeverLeaveAnHTTPResult(t *testing.T) {
	const secret = "s3cr3t-t0ken-value"
	h := httpCall("http://" + secret + ".invalid/?token=" + secret)
	h.Secrets = []string{secret}
	if res := local().Run(context.Background(), h); strings.Contains(res.Message, secret) {
		t.Fatalf("%q", res.Message)
	}
}

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
		call hooks.Call
		out  hooks.Outcome
		want string
		runs int
	}{
		{"a timeout over the default is not run", spec.Limits{}, long, hooks.Errored, "not run: timeout 20m is over --max-http-timeout (10m) (fix: raise --max-http-timeout", 0},
		{"a raised cap runs it", spec.Limits{HTTPTimeout: time.Hour}, long, hooks.Succeeded, "status 200", 1},
		{"headers over the cap", spec.Limits{Headers: 1}, withHeaders(httpCall(srv.URL), 2), hooks.Errored, "http.headers has 2 headers, over --max-headers (1)", 0},
		{"a body over the cap", spec.Limits{ResponseBody: 8}, httpCall(srv.URL), hooks.Errored, "response body over the limit of 8 bytes (--max-response-body)", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls = 0
			res := hooks.New(hooks.Limits{AllowPrivate: true, Caps: c.caps}).Run(context.Background(), c.call)
			if res.Outcome != c.out || !strings.Contains(res.Message, c.want) || calls != c.runs {
				t.Fatalf("got %s %q after %d calls, want %s containing %q after %d", res.Outcome, res.Message, calls, c.out, c.want, c.runs)
			}
		})
	}
}

func withHeaders(c hooks.Call, n int) hooks.Call {
	h := *c.Hook.Block.(*Block)
	h.Headers = map[string]string{}
	for i := range n {
		h.Headers[string(rune('A'+i))] = "x"
	}
	c.Hook.Block = &h
	return c
}

// TestAMessageOfACallWithATooShortSecretIsWithheld: the message of an http hook whose
// call uses a 1–2 byte secret is withheld (the runner's redactor), its outcome kept.
func TestAMessageOfACallWithATooShortSecretIsWithheld(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusForbidden) })
	c := httpCall(srv.URL)
	c.Secrets = []string{"x"}
	res := hooks.New(hooks.Limits{AllowPrivate: true}).Run(context.Background(), c)
	if res.Outcome != hooks.Failed || !strings.HasPrefix(res.Message, "message withheld") {
		t.Fatalf("%s %q", res.Outcome, res.Message)
	}
}

// TestReach: an http hook reaches its URL's host (the agent caps runs per host) and says
// when TLS goes unverified; a URL that does not parse reaches nothing (its run says why).
func TestReach(t *testing.T) {
	r := hooks.New(hooks.Limits{})
	for h, want := range map[*spec.Hook]hooks.Reach{
		{Type: "http", Block: &Block{URL: "https://slo.example.com:8443/x"}}:                      {Host: "slo.example.com:8443"},
		{Type: "http", Block: &Block{URL: "https://slo.example.com/x", InsecureSkipVerify: true}}: {Host: "slo.example.com", SkipsTLSVerify: true},
		{Type: "http", Block: &Block{URL: "://bad"}}:                                              {},
	} {
		if got := r.Reach(*h); got != want {
			t.Errorf("%s %+v: %+v, want %+v", h.Type, h.Block, got, want)
		}
	}
}

// TestARedirectToAnotherHostCarriesNoHeaderOfTheSpec: the spec's headers (a secret
// X-Api-Key among them) go to the host it names only; a redirect to another host keeps
// the harmless ones (the Idempotency-Key), and one on the same host keeps them all. Go's
// client drops only Authorization and Cookie by itself.
func TestARedirectToAnotherHostCarriesNoHeaderOfTheSpec(t *testing.T) {
	var got http.Header
	other := serve(t, func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() })
	for name, target := range map[string]string{"another host": other.URL + "/x", "the same host": "/same"} {
		got = nil
		first := serve(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/same" {
				got = r.Header.Clone()
				return
			}
			http.Redirect(w, r, target, http.StatusTemporaryRedirect)
		})
		c := httpCall(first.URL)
		c.Hook.Block.(*Block).Headers = map[string]string{"X-Api-Key": "s3cr3t-value"}
		if res := local().Run(context.Background(), c); res.Outcome != hooks.Succeeded || got == nil {
			t.Fatalf("%s: %+v", name, res)
		}
		if (got.Get("X-Api-Key") != "") != (name == "the same host") || got.Get("Idempotency-Key") == "" {
			t.Errorf("%s: headers %v", name, got)
		}
	}
}
