package jobhook

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cmp-phase/cmp-phase/internal/hooks/secrettest"
)

// TestRedactLog: every form of a referenced Secret's value leaves the tail as [redacted];
// a value too short to redact withholds the whole tail; escapes and control characters
// go; the tail keeps its last bytes, cut at a rune boundary.
func TestRedactLog(t *testing.T) {
	const secret = "s3cr3t-value"
	pem := "-----BEGIN KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\nQ0vxZ7rW9kHs3gEa\n-----END KEY-----\n"
	for _, tc := range []struct {
		name   string
		raw    string
		values []string
		cut    bool
		max    int
		want   string
		err    error
	}{
		{"in the middle", "connecting\nPGPASSWORD=s3cr3t-value ok\ndone\n", []string{secret}, false, 200, "connecting | PGPASSWORD=[redacted] ok | done", nil},
		{"repeated", "s3cr3t-values3cr3t-value\n", []string{secret}, false, 200, "[redacted][redacted]", nil},
		{"base64", "token " + base64.StdEncoding.EncodeToString([]byte(secret)) + " and " + base64.RawURLEncoding.EncodeToString([]byte(secret)), []string{secret}, false, 200, "token [redacted] and [redacted]", nil},
		{"url escaped", "GET /?p=a%2Fb%3Fc%3Dd", []string{"a/b?c=d"}, false, 200, "GET /?p=[redacted]", nil},
		{"a stored trailing newline", "pw is s3cr3t-value.\n", []string{secret + "\n"}, false, 200, "pw is [redacted].", nil},
		{"one line of a multi-line value", "MIIBOgIBAAJBAKj34GkxFhD9\nQ0vxZ7rW9kHs3gEa\n-----END KEY-----\n", []string{pem}, false, 200, "[redacted] | [redacted] | [redacted]", nil},
		{"a longer value first", "abcdefgh", []string{"abcd", "abcdefgh"}, false, 200, "[redacted]", nil},
		{"an empty value shows nothing", "plain", []string{""}, false, 200, "plain", nil},
		{"short value", "pin 123 ok", []string{"123"}, false, 200, "", errShortSecret},
		{"a short line of a value", "x", []string{"long-enough\nab"}, false, 200, "", errShortSecret},
		{"blank value", "x", []string{"  "}, false, 200, "", errShortSecret},
		{"escapes inside a value", "pw s3cr\x1b[31m3t-va\x1b[0mlue\n", []string{secret}, false, 200, "pw [redacted]", nil},
		{"ansi and control", "\x1b[1;32mgreen\x1b[0m \x1b]0;title\x07bell\x07 tab\there\rcr \u202eevil\x00\n", nil, false, 200, "green bell tab here | cr evil", nil},
		{"invalid utf-8", "a\xffb", nil, false, 200, "a\uFFFDb", nil},
		{"a cut read drops its partial last line", "one\ntwo s3cr3t-va", []string{secret}, true, 200, "one", nil},
		{"a cut read of one line", "s3cr3t-va", []string{secret}, true, 200, "", nil},
		{"capped keeps the end", "first line\nsecond line\nthe last\n", nil, false, 20, "…d line | the last", nil},
		{"capped at a rune boundary", "ééééé", nil, false, 8, "…éé", nil},
		{"capped after redaction", "xx s3cr3t-value", []string{secret}, false, 9, "…acted]", nil},
		{"no room", "abcdef", nil, false, 2, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var values [][]byte
			for _, v := range tc.values {
				values = append(values, []byte(v))
			}
			got, err := redactLog(tc.raw, values, tc.cut, tc.max)
			if err != tc.err || got != tc.want {
				t.Fatalf("got %q, %v; want %q, %v", got, err, tc.want, tc.err)
			}
			if len(got) > tc.max || !utf8.ValidString(got) {
				t.Fatalf("%q: over %d bytes or not UTF-8", got, tc.max)
			}
		})
	}
}

// TestRedactLogLeakWithholds: a value that the tail's own making spells (here its line
// joining) withholds the tail rather than show it; one a replacement spells is replaced too.
func TestRedactLogLeakWithholds(t *testing.T) {
	if got, err := redactLog("abc\ndef\n", [][]byte{[]byte("abc | def")}, false, 200); err != errLeak {
		t.Fatalf("joined lines: got %q, %v", got, err)
	}
	if got, err := redactLog("[redacteXYZWab", [][]byte{[]byte("XYZW"), []byte("d]ab")}, false, 200); err != nil || strings.Contains(got, "d]ab") {
		t.Fatalf("a replacement: got %q, %v", got, err)
	}
}

// TestASecretThatCouldHideInTheLogWithholdsIt: a value split over lines (a carriage
// return, base64 wrapped at 76 columns), spaced out, hex or \u-escaped never shows: the
// encoded forms are redacted, and a tail in which a value reads once its pieces are put
// together is withheld; ordinary text around a value is kept.
func TestASecretThatCouldHideInTheLogWithholdsIt(t *testing.T) {
	secret := "correct-horse-battery-staple-" + strings.Repeat("x", 40)
	b64 := base64.StdEncoding.EncodeToString([]byte(secret))
	for name, raw := range map[string]string{
		"carriage return": "token: correct-horse-\rbattery-staple-" + strings.Repeat("x", 40) + "\n",
		"split lines":     "correct-horse-batt\nery-staple-" + strings.Repeat("x", 40) + "\n",
		"base64 wrapped":  b64[:40] + "\n" + b64[40:] + "\n",
		"spaced out":      strings.Join(strings.Split(secret, ""), " ") + "\n",
	} {
		if got, err := redactLog(raw, [][]byte{[]byte(secret)}, false, 4096); err != errLeak {
			t.Errorf("%s: got %q, %v", name, got, err)
		}
	}
	var u strings.Builder
	for _, r := range "s3cr3t-value" {
		fmt.Fprintf(&u, "\\u%04x", r)
	}
	for name, raw := range map[string]string{
		"hex":         "key=" + hex.EncodeToString([]byte("s3cr3t-value")) + " ok\n",
		"HEX":         "key=" + strings.ToUpper(hex.EncodeToString([]byte("s3cr3t-value"))) + " ok\n",
		"\\u-escaped": "key=" + u.String() + " ok\n",
	} {
		got, err := redactLog(raw, [][]byte{[]byte("s3cr3t-value")}, false, 4096)
		if err != nil || got != "key=[redacted] ok" {
			t.Errorf("%s: got %q, %v", name, got, err)
		}
	}
}

// FuzzRedactLog: whatever the log and a value of at least minLogSecret bytes, the tail is
// capped, valid UTF-8, and never shows the value, nor its base64 form.
func FuzzRedactLog(f *testing.F) {
	f.Add("PGPASSWORD=s3cr3t-value\n", "s3cr3t-value", 100)
	f.Add("s3cr\x1b[0m3t\r\n", "s3cr3t", 10)
	f.Add("[redacteXYZWab", "d]ab", 50)
	f.Add("ééé\xff\n\n", "éé", 5)
	f.Fuzz(func(t *testing.T, raw, value string, max int) {
		max = max%2048 + 1
		if max < 0 {
			max = -max
		}
		got, err := redactLog(raw, [][]byte{[]byte(value)}, false, max)
		if err != nil {
			return
		}
		if len(got) > max || !utf8.ValidString(got) {
			t.Fatalf("%q: over %d bytes or not UTF-8", got, max)
		}
		v := strings.TrimSpace(value)
		if v != "" && (strings.Contains(got, v) || strings.Contains(got, base64.StdEncoding.EncodeToString([]byte(v)))) {
			t.Fatalf("%q shows %q", got, v)
		}
	})
}

// TestASecretIsRedactedInItsJSONAndBase64Forms: a server or client quoting a secret back in
// JSON, a Go error or base64 (a Basic auth header) shows it in another spelling; every one is
// redacted from a pod's log.
func TestASecretIsRedactedInItsJSONAndBase64Forms(t *testing.T) {
	for _, secret := range []string{`p"a\ss<w>&rd` + "\n\tpart-two ü\u2028x", "user:s3cr3t?", "ab\x01c", "hunter2!/+é'"} {
		for name, form := range secrettest.Forms(secret) {
			got, err := redactLog("2026 bad token "+form+" end\n", [][]byte{[]byte(secret)}, false, 1024)
			if err != nil || strings.Contains(got, form) {
				t.Errorf("log, %s form %q of %q: %q %v", name, form, secret, got, err)
			}
			if strings.HasPrefix(form, "Basic ") && got != "2026 bad token Basic [redacted] end" {
				t.Errorf("log, %s form %q of %q: the base64 around the secret stays: %q", name, form, secret, got)
			}
		}
	}
}
