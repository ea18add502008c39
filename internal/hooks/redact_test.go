package hooks

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// secretForms are a secret as a message may quote it: JSON-escaped (with and without HTML
// escaping), Go-quoted, and base64 in each alphabet, padded or not.
func secretForms(s string) map[string]string {
	j, _ := json.Marshal(s)
	b := []byte(s)
	return map[string]string{
		"json":           string(j[1 : len(j)-1]),
		"json no html":   noHTML(s),
		"strconv.Quote":  strconv.Quote(s)[1 : len(strconv.Quote(s))-1],
		"QuoteToASCII":   strconv.QuoteToASCII(s)[1 : len(strconv.QuoteToASCII(s))-1],
		"base64 std":     base64.StdEncoding.EncodeToString(b),
		"base64 raw std": base64.RawStdEncoding.EncodeToString(b),
		"base64 url":     base64.URLEncoding.EncodeToString(b),
		"base64 raw url": base64.RawURLEncoding.EncodeToString(b),
	}
}

// noHTML is s JSON-escaped by an encoder that leaves <, > and & alone, without the quotes.
func noHTML(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	q := strings.TrimSuffix(b.String(), "\n")
	return q[1 : len(q)-1]
}

// TestASecretIsRedactedInItsJSONAndBase64Forms: a server or client quoting a secret back in
// JSON, a Go error or base64 (a Basic auth header) shows it in another spelling; every one is
// redacted, in a message (and in a job hook's pod log: internal/hooks/jobhook).
func TestASecretIsRedactedInItsJSONAndBase64Forms(t *testing.T) {
	for _, secret := range []string{`p"a\ss<w>&rd` + "\n\tpart-two ü\u2028x", "user:s3cr3t?", "ab\x01c"} {
		r := newRedactor([]string{secret})
		for name, form := range secretForms(secret) {
			if got := r.message(`{"error":"bad token `+form+`"}`, 1024); strings.Contains(got, form) || !strings.Contains(got, "[redacted]") {
				t.Errorf("message, %s form %q of %q: %q", name, form, secret, got)
			}
		}
	}
}

// TestAMessageOfACallWithATooShortSecretIsWithheld: a 1–2 byte secret cannot be redacted
// without destroying the text (every "a"), so the message is withheld, saying why and the
// fix, and the outcome stands (internal/hooks/httphook runs a call with one).
func TestAMessageOfACallWithATooShortSecretIsWithheld(t *testing.T) {
	for _, secret := range []string{"7", "ab"} {
		r := newRedactor([]string{"long-enough", secret})
		got := r.message("status 500: token ab7 refused", 1024)
		if strings.Contains(got, "ab7") || !strings.Contains(got, "shorter than 3 bytes") || !strings.Contains(got, "(fix: ") {
			t.Errorf("%q: %q", secret, got)
		}
	}
	if got := newRedactor([]string{"", "abc"}).message("x abc y", 1024); got != "x [redacted] y" {
		t.Errorf("an empty secret shows nothing and withholds nothing: %q", got)
	}
}
