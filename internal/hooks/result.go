package hooks

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
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
	forms []string
	short bool
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
// padded or not); URL-escaped; and escaped inside a JSON or Go string (json.Marshal with and
// without HTML escaping, strconv.Quote and QuoteToASCII, without the quotes), as a client or
// server quoting a request back writes it. Every message is redacted of them; a kind redacting
// other text (a job's pod log) redacts the same forms.
func SecretForms(s string) []string {
	if s == "" {
		return nil
	}
	b := []byte(s)
	out := []string{s, base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
		url.QueryEscape(s), url.PathEscape(s), unquoted(strconv.Quote(s)), unquoted(strconv.QuoteToASCII(s))}
	if j, err := json.Marshal(s); err == nil {
		out = append(out, unquoted(string(j)))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) == nil {
		out = append(out, unquoted(strings.TrimSuffix(buf.String(), "\n")))
	}
	var uniq []string
	for _, f := range out {
		if f != "" && !slices.Contains(uniq, f) {
			uniq = append(uniq, f)
		}
	}
	return uniq
}

// unquoted is a quoted string without its quotes.
func unquoted(q string) string { return q[1 : len(q)-1] }
