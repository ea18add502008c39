package hooks

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks/secrettest"
)

// TestASecretIsRedactedInItsJSONAndBase64Forms: a server or client quoting a secret back in
// JSON, a Go error or base64 (a Basic auth header) shows it in another spelling; every one is
// redacted, in a message (and in a job hook's pod log: internal/hooks/jobhook).
func TestASecretIsRedactedInItsJSONAndBase64Forms(t *testing.T) {
	for _, secret := range []string{`p"a\ss<w>&rd` + "\n\tpart-two ü\u2028x", "user:s3cr3t?", "ab\x01c", "hunter2!/+é'"} {
		r := newRedactor([]string{secret})
		for name, form := range secrettest.Forms(secret) {
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
