package jobhook

import (
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// minLogSecret is the shortest Secret value a pod's log is redacted of; a shorter one would
// redact ordinary text and could not be told from it, so the log is withheld instead.
const minLogSecret = 4

// logRedacted replaces a Secret value in a pod's log.
const logRedacted = "[redacted]"

// errShortSecret withholds a log: a referenced Secret has a value too short to redact.
var errShortSecret = errors.New("a Secret the pod references has a value too short to redact safely")

// errLeak withholds a log: a Secret value still shows after redaction (the replacement and
// the text around it spelled one again).
var errLeak = errors.New("a Secret value could not be redacted from it")

// logForms are the strings to redact from a pod's log for the Secret values: each value,
// without its surrounding white space, each of its lines (a tail may begin inside a
// multi-line value), base64 (standard and URL, padded or not) and URL-escaped; longest
// first, so a value that contains another is redacted whole. A value (or line) shorter than
// minLogSecret bytes is errShortSecret; empty values show nothing and are skipped.
func logForms(values [][]byte) ([]string, error) {
	var forms []string
	add := func(s string) error {
		if s == "" {
			return nil
		}
		if len(s) < minLogSecret {
			return errShortSecret
		}
		if !slices.Contains(forms, s) {
			forms = append(forms, s)
		}
		return nil
	}
	for _, v := range values {
		raw, trimmed := string(v), strings.TrimSpace(string(v))
		if raw == "" {
			continue
		}
		if trimmed == "" && len(raw) < minLogSecret {
			return nil, errShortSecret
		}
		plain := []string{raw, trimmed}
		for _, line := range strings.Split(trimmed, "\n") {
			plain = append(plain, strings.TrimSpace(line))
		}
		for _, s := range plain {
			for _, form := range append(hooks.SecretForms(s), encodedForms(s)...) {
				if err := add(form); err != nil {
					return nil, err
				}
			}
		}
	}
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return forms, nil
}

// redactLog is the tail of a pod's log safe for a hook's message, at most max bytes: every
// Secret value replaced by [redacted] (before and after the text is cleaned, so escapes
// between its characters do not hide one), terminal escapes and control characters
// removed, its lines joined by " | ", the last ones kept. cut says the read stopped at its
// byte limit: the last, partial line is dropped (it may end inside a value). An error
// withholds the whole tail: a value too short to redact, or one that still shows.
func redactLog(raw string, values [][]byte, cut bool, max int) (string, error) {
	forms, err := logForms(values)
	if err != nil {
		return "", err
	}
	if cut {
		raw = raw[:strings.LastIndexByte(raw, '\n')+1]
	}
	inside := insideForms(values)
	text := cleanLog(replaceAll(cleanLog(replaceAll(raw, forms, inside)), forms, inside))
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	out := lastBytes(strings.Join(lines, " | "), max)
	if showsAny(out, forms) || showsAny(squashed(out), squashedForms(forms)) {
		return "", errLeak // a value still shows, or would once its pieces are put together
	}
	return out, nil
}

func replaceAll(s string, forms, inside []string) string {
	s = hooks.RedactBase64Runs(s, inside, logRedacted)
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, logRedacted)
	}
	return s
}

// insideForms are the values' hooks.Base64Inside runs, whose whole base64 run is redacted.
func insideForms(values [][]byte) []string {
	var out []string
	for _, v := range values {
		out = append(out, hooks.Base64Inside(strings.TrimSpace(string(v)))...)
	}
	return out
}

func showsAny(s string, forms []string) bool {
	return slices.ContainsFunc(forms, func(f string) bool { return strings.Contains(s, f) })
}

// ansi matches terminal escape sequences: CSI (colours, cursor), OSC (titles, links) and
// two-character escapes.
var ansi = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)?|\x1b[@-Z\\\\-_]")

// cleanLog is s as valid UTF-8 without terminal escapes, control or format characters
// (bidirectional overrides among them); a carriage return ends a line, a tab is a space.
func cleanLog(s string) string {
	s = ansi.ReplaceAllString(strings.ToValidUTF8(s, "\uFFFD"), "")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\r':
			return '\n'
		case r == '\t':
			return ' '
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, s)
}

// lastBytes is the end of s in at most max bytes, cut at a rune boundary and marked "…".
func lastBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const mark = "…"
	if max <= len(mark) {
		return ""
	}
	cut := len(s) - (max - len(mark))
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return mark + s[cut:]
}

// encodedForms are forms of a Secret value a program may print that SecretForms does not
// cover: hex (lower and upper case) and every character \u-escaped.
func encodedForms(s string) []string {
	h := hex.EncodeToString([]byte(s))
	var u strings.Builder
	for _, r := range s {
		fmt.Fprintf(&u, "\\u%04x", r)
	}
	return []string{h, strings.ToUpper(h), u.String()}
}

// squashed is s without white space and the " | " that joins its lines: how a value split
// over lines (a carriage return, base64 wrapped at 76 columns) or spaced out reads once put
// together. The log is withheld when a squashed form shows in it: it could hide there.
func squashed(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '|' {
			return -1
		}
		return r
	}, s)
}

// squashedForms are forms squashed, those still long enough to tell from ordinary text.
func squashedForms(forms []string) []string {
	var out []string
	for _, f := range forms {
		if q := squashed(f); len(q) >= minLogSecret && !slices.Contains(out, q) {
			out = append(out, q)
		}
	}
	return out
}
