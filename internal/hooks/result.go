package hooks

import (
	"net/url"
	"slices"
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
	// Cleanup is the Job a job hook's run made and its hookDeletePolicy deletes after this
	// outcome; the agent deletes it once the ledger has recorded the outcome. Not stored.
	Cleanup *JobRef `json:"-"`
}

// redactor replaces secret values in text; it is built per call from the values the call
// resolved, longest first so a secret that contains another is redacted whole.
type redactor []string

func newRedactor(secrets []string) redactor {
	var r redactor
	for _, s := range secrets {
		if len(s) < 3 { // shorter values would redact ordinary text, and are not secrets
			continue
		}
		// a secret may show escaped too, e.g. in a URL a client quotes back
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s)} {
			if !slices.Contains(r, form) {
				r = append(r, form)
			}
		}
	}
	for i := range r { // insertion sort by length, longest first (a handful of values)
		for j := i; j > 0 && len(r[j]) > len(r[j-1]); j-- {
			r[j], r[j-1] = r[j-1], r[j]
		}
	}
	return r
}

func (r redactor) apply(s string) string {
	for _, secret := range r {
		s = strings.ReplaceAll(s, secret, "[redacted]")
	}
	return s
}

// message is text made safe for a Result: redacted first (a cut could split a secret), then
// truncated to max bytes on a rune boundary.
func (r redactor) message(s string, max int) string {
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
