package hooks

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html"
	"net/url"
	"regexp"
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
		// issue 47: the forms the redaction missed.
		"basic auth":   "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+s)),
		"basic auth 2": "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+s)),
		"basic auth 3": "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:"+s)),
		"in base64":    base64.URLEncoding.EncodeToString([]byte("k=" + s + ";more")),
		"html":         html.EscapeString(s),
		"html quot":    strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;").Replace(s),
		"hex":          hex.EncodeToString(b),
		"HEX":          strings.ToUpper(hex.EncodeToString(b)),
		"lower %xx":    lowerHexEscapes(url.QueryEscape(s)),
		"lower %xx pa": lowerHexEscapes(url.PathEscape(s)),
	}
}

// lowerHexEscapes is a URL-escaped text with lower-case %xx escapes.
func lowerHexEscapes(s string) string {
	return regexp.MustCompile(`%[0-9A-F]{2}`).ReplaceAllStringFunc(s, strings.ToLower)
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
	for _, secret := range []string{`p"a\ss<w>&rd` + "\n\tpart-two ü\u2028x", "user:s3cr3t?", "ab\x01c", "hunter2!/+é'"} {
		r := newRedactor([]string{secret})
		for name, form := range secretForms(secret) {
			got := r.message(`{"error":"bad token `+form+`"}`, 1024)
			if strings.Contains(got, form) || !strings.Contains(got, "[redacted]") {
				t.Errorf("message, %s form %q of %q: %q", name, form, secret, got)
			}
			if strings.HasPrefix(form, "Basic ") && !strings.HasSuffix(got, `bad token Basic [redacted]"}`) {
				t.Errorf("message, %s form %q of %q: the base64 around the secret stays: %q", name, form, secret, got)
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
