package hooks

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Outcome is how one run ended.
type Outcome string

// Outcomes. Failed and Errored stay apart: a gate that said no is not a gate we could not
// ask. A kind that needs another (a metric's Inconclusive) adds it here with the ledger
// status the agent records it as; the agent records an outcome it does not know as Errored.
const (
	Succeeded Outcome = "Succeeded" // ran and said yes
	Failed    Outcome = "Failed"    // ran and said no: wrong status, non-zero exit
	Errored   Outcome = "Errored"   // could not run or could not tell: refused, unreachable, timed out
	// Inconclusive: a metric check's measurements said neither yes nor no (no data, NaN,
	// neither condition decisive) more often than it tolerates; the agent records it as
	// state.HookInconclusive, and the engine pauses the rollout for a person.
	Inconclusive Outcome = "Inconclusive"
)

// Result is one attempt's outcome, safe to store and show: its message is truncated and
// carries no secret value.
type Result struct {
	Outcome  Outcome       `json:"outcome"`
	Message  string        `json:"message,omitempty"`
	Status   int           `json:"status,omitempty"`   // http: the response status
	ExitCode int           `json:"exitCode,omitempty"` // command: the exit status
	Duration time.Duration `json:"duration"`
	// Cleanup is what the run left for the agent to remove after this outcome (a job
	// hook's Job its hookDeletePolicy deletes), once the ledger has recorded the outcome;
	// nil: nothing. Not stored.
	Cleanup Cleanup `json:"-"`
}

// minMessageSecret is the shortest secret value a message is redacted of: a shorter one
// would redact ordinary text (every "a", every "42"), so a message of a call using one is
// withheld instead (shortSecretMessage), its outcome kept.
const minMessageSecret = 3

// shortSecretMessage replaces the message of a call with a secret too short to redact.
const shortSecretMessage = "message withheld: a secret value the hook uses is shorter than 3 bytes, too short to redact from it (fix: use a secret value of at least 3 bytes)"

// redactor replaces secret values in text; it is built per call from the values the call
// resolved, in every form they may show (encodings: escaped for JSON, Go or a URL, base64),
// longest first so a secret that contains another is redacted whole. short: a value was too
// short to redact, so message withholds the text.
type redactor struct {
	forms  []string
	inside []string // Base64Inside of each secret: its whole base64 run is redacted
	short  bool
}

func newRedactor(secrets []string) redactor {
	var r redactor
	for _, s := range secrets {
		if s == "" {
			continue // shows nothing
		}
		if len(s) < minMessageSecret {
			r.short = true
			continue
		}
		r.inside = append(r.inside, Base64Inside(s)...)
		for _, form := range SecretForms(s) {
			if len(form) >= minMessageSecret && !slices.Contains(r.forms, form) {
				r.forms = append(r.forms, form)
			}
		}
	}
	slices.SortStableFunc(r.forms, func(a, b string) int { return len(b) - len(a) })
	return r
}

func (r redactor) apply(s string) string {
	s = RedactBase64Runs(s, r.inside, "[redacted]")
	for _, secret := range r.forms {
		s = strings.ReplaceAll(s, secret, "[redacted]")
	}
	return s
}

// message is text made safe for a Result: redacted first (a cut could split a secret), then
// truncated to max bytes on a rune boundary.
func (r redactor) message(s string, max int) string {
	if r.short && strings.TrimSpace(s) != "" {
		s = shortSecretMessage
	}
	s = strings.TrimSpace(r.apply(s))
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Cut is s trimmed and cut to max bytes on a rune boundary ("…" marking the cut), as a
// Result's message is (without redacting: for text that holds no secret value).
func Cut(s string, max int) string { return redactor{}.message(s, max) }

// SecretForms are secret s as it may show in a log or a message: itself; base64 (standard and URL,
// padded or not, and inside a longer encoded text such as Basic base64("user:"+s):
// base64Inside); URL-escaped (upper- and lower-case %xx); hex (either case); HTML-escaped;
// and escaped inside a JSON or Go string (json.Marshal with and without HTML escaping,
// strconv.Quote and QuoteToASCII, without the quotes), as a client or server quoting a
// request back writes it. Every message is redacted of them; a kind redacting other text (a
// job's pod log) redacts the same forms.
func SecretForms(s string) []string {
	if s == "" {
		return nil
	}
	b := []byte(s)
	h := hex.EncodeToString(b)
	out := []string{s, base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
		url.QueryEscape(s), url.PathEscape(s), lowerPercent(url.QueryEscape(s)), lowerPercent(url.PathEscape(s)),
		h, strings.ToUpper(h), html.EscapeString(s), htmlEntities.Replace(s),
		unquoted(strconv.Quote(s)), unquoted(strconv.QuoteToASCII(s))}
	out = append(out, jsonForms(s)...)
	out = append(out, Base64Inside(s)...)
	var uniq []string
	for _, f := range out {
		if f != "" && !slices.Contains(uniq, f) {
			uniq = append(uniq, f)
		}
	}
	return uniq
}

// htmlEntities escapes as servers other than Go's do (&quot;, &#x27;).
var htmlEntities = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")

// jsonForms are s inside a JSON string, with and without HTML escaping, without the quotes.
func jsonForms(s string) []string {
	var out []string
	if j, err := json.Marshal(s); err == nil {
		out = append(out, unquoted(string(j)))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) == nil {
		out = append(out, unquoted(strings.TrimSuffix(buf.String(), "\n")))
	}
	return out
}

// minInside is the shortest run of base64 Base64Inside gives: a shorter one could be
// anything's (so a secret of 3 bytes is found inside a longer base64 text only where it
// starts a group of 3 bytes).
const minInside = 4

// Base64Inside are the runs of base64 that s encodes to wherever it starts in a longer
// encoded text (Basic base64("user:"+s) starts it 5 bytes in): for each offset k of s in
// a group of 3 bytes, the characters s's bytes alone decide — the last two (k=1) or one
// (k=2) of the group s starts in, every group of s's bytes, the first one or two of the
// group s ends in — in both alphabets, when at least minInside long.
func Base64Inside(s string) []string {
	var out []string
	for k := range 3 {
		n := k + len(s)
		start, end := []int{0, 2, 3}[k], 4*(n/3)+[]int{0, 1, 2}[n%3]
		if end-start < minInside {
			continue
		}
		shifted := append(make([]byte, k), s...)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			out = append(out, enc.EncodeToString(shifted)[start:end])
		}
	}
	return out
}

// RedactBase64Runs replaces with mark each run of base64 characters in s that holds one of
// cores (Base64Inside): the whole run, so the characters next to a core, which also encode
// bytes of the secret, go with it (Basic dXNlcjpodW50ZXIy becomes Basic [redacted]).
func RedactBase64Runs(s string, cores []string, mark string) string {
	for _, core := range cores {
		for from := 0; ; {
			i := strings.Index(s[from:], core)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(core)
			for start > 0 && isBase64(s[start-1]) {
				start--
			}
			for end < len(s) && isBase64(s[end]) {
				end++
			}
			s = s[:start] + mark + s[end:]
			from = start + len(mark)
		}
	}
	return s
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("+/=-_", c) >= 0
}

// lowerPercent is a URL-escaped text with its %XX escapes in lower case, as some clients
// write them.
func lowerPercent(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = toLowerHex(b[i+1]), toLowerHex(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func toLowerHex(c byte) byte {
	if c >= 'A' && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// unquoted is a quoted string without its quotes.
func unquoted(q string) string { return q[1 : len(q)-1] }
