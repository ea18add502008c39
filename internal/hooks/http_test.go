package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

func httpCall(url string) Call {
	return Call{Rollout: "guestbook", Namespace: "argocd", Phase: "prod", Revision: "r2", IdempotencyKey: "guestbook/r2/prod/notify", Place: "post",
		Hook: spec.Hook{Name: "notify", Type: "http", Timeout: 5 * time.Second, FailurePolicy: "fail",
			Block: &spec.HTTPHook{URL: url, Method: "POST", Body: `{"phase":"prod"}`, ExpectedStatus: 200}}}
}

// local is a runner that may reach the test servers on loopback.
func local() *Runner { return New(Limits{AllowPrivate: true}) }

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
		call    func() Call
		want    Outcome
		message string
	}{
		{"a 2xx is success", func() Call { return httpCall(ok.URL) }, Succeeded, "status 200: fine"},
		{"another status is a gate's no, not an error", func() Call { return httpCall(wrong.URL) }, Failed, "status 409, want 200: change window closed"},
		{"a body still coming at the timeout is an error", func() Call {
			c := httpCall(slowBody.URL)
			c.Hook.Timeout = 500 * time.Millisecond
			return c
		}, Errored, "timed out"},
		{"a body past the cap is an error", func() Call { return httpCall(big.URL) }, Errored, "over the limit of 1048576 bytes"},
		{"a lying Content-Length does not make us read past the cap", func() Call { return httpCall(lying.URL) }, Errored, "over the limit of 1048576 bytes"},
		{"a redirect loop ends after 5 redirects", func() Call { return httpCall(loop.URL) }, Errored, "more than 5 redirects"},
		{"a redirect to a metadata address is refused", func() Call { return httpCall(toMetadata.URL) }, Errored, "169.254.169.254 is a cloud metadata address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := local().Run(context.Background(), c.call())
			if res.Outcome != c.want || !strings.Contains(res.Message, c.message) {
				t.Fatalf("got %s %q, want %s containing %q", res.Outcome, res.Message, c.want, c.message)
			}
		})
	}
	for k, v := range map[string]string{"User-Agent": UserAgent, "X-Appset-Name": "guestbook", "X-Appset-Namespace": "argocd",
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
	var seen []Outcome
	res := local().RunAttempts(context.Background(), c, Backoff{Attempts: 5, Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond},
		func(_ int, r Result) { seen = append(seen, r.Outcome) })
	if res.Outcome != Succeeded || fmt.Sprint(seen) != "[Failed Failed Succeeded]" {
		t.Fatalf("%s after %v", res.Outcome, seen)
	}
	if keys[0] != keys[1] || keys[1] != keys[2] {
		t.Fatalf("the idempotency key is stable across attempts: %v", keys)
	}
	c.Hook.FailurePolicy = "fail"
	atomic.StoreInt32(&calls, 0)
	if res := local().RunAttempts(context.Background(), c, DefaultBackoff, nil); res.Outcome != Failed || atomic.LoadInt32(&calls) != 1 {
		t.Fatalf("without retry one attempt: %s after %d", res.Outcome, calls)
	}
}

func TestTLSIsVerifiedUnlessTheHookSaysOtherwise(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	res := local().Run(context.Background(), httpCall(srv.URL))
	if res.Outcome != Errored || !strings.Contains(res.Message, "certificate") {
		t.Fatalf("an unknown CA: %s %q", res.Outcome, res.Message)
	}
	c := httpCall(srv.URL)
	c.Hook.Block.(*spec.HTTPHook).InsecureSkipVerify = true
	if res := local().Run(context.Background(), c); res.Outcome != Succeeded || !strings.HasPrefix(res.Message, "TLS not verified") {
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
			res := New(Limits{AllowPrivate: c.private}).Run(context.Background(), httpCall(c.url))
			if res.Outcome != Errored || !strings.Contains(res.Message, c.want) {
				t.Fatalf("got %s %q, want Errored with %q", res.Outcome, res.Message, c.want)
			}
		})
	}
}

// TestANameWithOneRefusedAddressIsRefused: a name resolving to a public and a private
// address is not trusted.
func TestANameWithOneRefusedAddressIsRefused(t *testing.T) {
	g := &guard{lookup: func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.7")}, nil
	}}
	if _, err := g.dial(context.Background(), "tcp", "mixed.example:80"); err == nil || !strings.Contains(err.Error(), "10.0.0.7 is loopback or private") {
		t.Fatalf("refused for its private address: %v", err)
	}
}

func TestTheGuardDialsTheAddressItChecked(t *testing.T) {
	answers := 0
	g := &guard{lookup: func(context.Context, string) ([]netip.Addr, error) {
		answers++ // a rebinding resolver: public first, then metadata
		if answers == 1 {
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, _ = g.dial(ctx, "tcp", "rebind.example:80") // dials 93.184.216.34 (unreachable here), never asks again
	if answers != 1 {
		t.Fatalf("the name was resolved %d times for one dial", answers)
	}
	if _, err := g.dial(context.Background(), "tcp", "rebind.example:80"); err == nil || !strings.Contains(err.Error(), "metadata") {
		t.Fatalf("the second answer is checked like the first: %v", err)
	}
}

func TestAURLFromAnAnnotationMustStillBeHTTP(t *testing.T) {
	res := local().Run(context.Background(), httpCall("file:///etc/passwd"))
	if res.Outcome != Errored || !strings.Contains(res.Message, "unsupported protocol scheme") {
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

func TestARequestErrorNamesTheHostNotTheURL(t *testing.T) {
	secret := "s3cr/t +&="
	q := url.QueryEscape(secret)
	cases := []struct {
		name      string
		err       error
		want, not string
	}{
		{"a url.Error with the secret in the query", &url.Error{Op: "Get", URL: "http://prom:9090/api/v1/query?query=" + q, Err: errors.New("connection refused")}, "Get prom:9090: connection refused", q},
		{"a wrapped url.Error", fmt.Errorf("asking: %w", &url.Error{Op: "Get", URL: "http://h/" + url.PathEscape(secret), Err: errors.New("EOF")}), "Get h: EOF", url.PathEscape(secret)},
		{"another error as it is", errors.New("boom"), "boom", "http"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := DescribeErr(context.Background(), c.err)
			if got != c.want || strings.Contains(got, c.not) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestASecretIsRedactedInItsEscapedForms(t *testing.T) {
	secret := "s3cr/t +&="
	r := newRedactor([]string{secret})
	for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
		if got := r.apply("query=" + form + " end"); got != "query=[redacted] end" {
			t.Errorf("%q: got %q", form, got)
		}
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
