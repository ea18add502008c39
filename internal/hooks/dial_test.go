package hooks

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

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
	for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret),
		"s3cr%2ft+%2b%26%3d", "s3cr/t +&amp;=", "733363722f74202b263d", "733363722F74202B263D"} {
		if got := r.apply("query=" + form + " end"); got != "query=[redacted] end" {
			t.Errorf("%q: got %q", form, got)
		}
	}
}
