package hooks

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// Context is where a templated field's value lands, which decides how a cluster value —
// {{name}}, {{server}}, {{project}}, a label or annotation: text the spec does not write
// but the inventory does — is escaped or refused in it. Phase variables ({{.appset.name}},
// {{.phase.name}}, …) and secret references are the operator's own text and are filled as
// written. Each kind names the context of each of its fields (FieldFiller); Template
// applies it, and TemplateProblem refuses at validate what no value could make safe.
type Context int

const (
	// Text is filled as written: an env value, a namespace, a string of a Job's spec.
	Text Context = iota
	// Header is an HTTP header value: a cluster value may not hold CR, LF or NUL.
	Header
	// URL is an absolute URL (an http hook's url, a metric check's Prometheus address).
	// A cluster value may not be in its scheme, user info or port, and in its host only as
	// leading DNS labels before a domain the spec writes (https://{{name}}.example.com, where
	// the value must then be one DNS label); in the path it is one segment
	// (url.PathEscape) and never . or .. (which would move the path); in the query one
	// value (url.QueryEscape). The host the filled URL names must be the host its template
	// names.
	URL
	// Body is an HTTP request body, read by its text around the placeholders. In a JSON
	// body (it starts with { or [) a cluster value inside a string literal is JSON-escaped
	// (no quotes added); outside one it must be a single JSON scalar (a number, true, false,
	// null, a quoted string). In an XML body (it starts with <) it is XML-escaped, and in a
	// CDATA section may not hold ]]>. In a form (key=value pairs joined by &) it is one
	// query value (url.QueryEscape). A body of other text takes it as written.
	Body
	// PromQL is a Prometheus query: a cluster value inside a string literal is escaped for
	// it (\ and the quote; a `raw` string refuses a backtick); outside one it must be a
	// name or a number ([A-Za-z0-9_:.]); in a # comment it may not end the line.
	PromQL
	// Arg is one argv element: it stays one element (no shell reads it), and a cluster
	// value that would start it with - is refused (--cluster={{name}} is fine).
	Arg
	// Program is the program an argv runs: never a cluster value.
	Program
)

// Field is one templated field of a block: its path in the hook, for messages
// (http.url, command.command[1]), and where its value lands.
type Field struct {
	Path string
	In   Context
}

// FieldFiller is a block whose kind says where each of its templated fields lands.
// Every registered kind's block is one (internal/hooks/all holds them to it), its Fill
// being FillFields through AnyField, so both visit the same fields. Template fills a
// block that is not one as Text throughout.
type FieldFiller interface {
	FillFields(f func(Field, string) string) spec.HookBlock
}

// AnyField is a filler of fields that ignores where they land: a kind's Fill (which
// spec.HookBlock asks for) is its FillFields through it.
func AnyField(f func(string) string) func(Field, string) string {
	return func(_ Field, s string) string { return f(s) }
}

// The fix told when a cluster value would decide where a URL goes.
const urlHostFix = "write the host literally; put cluster values in the path or query"

// TemplateProblem is what no cluster value could make safe in template s of a field
// landing in, and its fix: a cluster field in a URL's scheme, user info, port or host
// (but for leading labels before a literal domain), or in the program of an argv. ""
// when there is none. Kinds call it when they parse a spec; Template again when it runs.
func TemplateProblem(in Context, s string) (problem, fix string) {
	t := readTemplate(s)
	for _, sl := range t.slots {
		if !spec.ClusterVar(sl.name) {
			continue
		}
		switch in {
		case Program:
			return fmt.Sprintf("cluster field {{%s}} would choose the program", sl.name), "name the program literally; pass cluster values as arguments or in env"
		case URL:
			if where := t.urlHostProblem(sl); where != "" {
				return fmt.Sprintf("cluster field {{%s}} would set the URL's %s", sl.name, where), urlHostFix
			}
		}
	}
	return "", ""
}

// ClusterInHost reports whether URL template s puts a cluster field in its host (as a
// leading label, the one place TemplateProblem lets it be): the host is then not the one
// the spec writes, and the hook may carry no secret.
func ClusterInHost(s string) bool {
	t := readTemplate(s)
	for _, sl := range t.slots {
		if spec.ClusterVar(sl.name) && urlPartAt(t.masked[:sl.at]) == inAuthority {
			return true
		}
	}
	return false
}

// template is a field's template read for escaping: its text with every placeholder cut
// out (masked), and where each was.
type template struct {
	masked string
	slots  []slot
}

// slot is one placeholder: its name and its offset in the masked text.
type slot struct {
	name string
	at   int
}

func readTemplate(s string) template {
	var t template
	var b strings.Builder
	last := 0
	for _, loc := range spec.HookPlaceholder.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:loc[0]])
		t.slots = append(t.slots, slot{name: s[loc[2]:loc[3]], at: b.Len()})
		last = loc[1]
	}
	b.WriteString(s[last:])
	t.masked = b.String()
	return t
}

// The parts of a URL a placeholder may be in.
const (
	inScheme = iota
	inAuthority
	inPath
	inQuery
	inFragment
)

// urlPartAt is the part of a URL the text after prefix is in.
func urlPartAt(prefix string) int {
	i := strings.Index(prefix, "://")
	if i < 0 {
		return inScheme
	}
	rest := prefix[i+3:]
	j := strings.IndexAny(rest, "/?#")
	switch {
	case j < 0:
		return inAuthority
	case strings.Contains(rest[j:], "#"):
		return inFragment
	case strings.Contains(rest[j:], "?"):
		return inQuery
	}
	return inPath
}

// literalDomain is the rest of a host after a leading label: a dot and a literal label.
var literalDomain = regexp.MustCompile(`^\.[A-Za-z0-9]`)

// urlHostProblem names the part of the URL where sl may not be ("scheme", "user info",
// "port", "host"), "" when it may be where it is.
func (t template) urlHostProblem(sl slot) string {
	prefix := t.masked[:sl.at]
	switch urlPartAt(prefix) {
	case inScheme:
		return "scheme"
	case inAuthority:
	default:
		return ""
	}
	start := strings.Index(prefix, "://") + 3
	authority := t.masked[start:]
	if end := strings.IndexAny(authority, "/?#"); end >= 0 {
		authority = authority[:end]
	}
	before, after := prefix[start:], t.masked[sl.at:start+len(authority)]
	switch {
	case strings.Contains(authority, "@"):
		return "user info"
	case strings.Contains(before, ":"):
		return "port"
	case before != "" && !strings.HasSuffix(before, "."), !literalDomain.MatchString(after):
		return "host"
	}
	return ""
}

// dnsLabel is one DNS label (RFC 1123), the one thing a cluster value may be in a host.
var dnsLabel = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?$`)

// promName is what a cluster value may be outside a PromQL string: a name or a number.
var promName = regexp.MustCompile(`^-?[A-Za-z0-9_:.]+$`)

// escape is cluster value v as it lands at slot i of template t in a field of context in;
// out is what the field holds before it.
func escape(in Context, t template, i int, out, v string) (string, error) {
	prefix := t.masked[:t.slots[i].at]
	switch in {
	case Header:
		if strings.ContainsAny(v, "\r\n\x00") {
			return "", errors.New("value holds a line break or NUL, which would end the header (fix: give the cluster a single-line value)")
		}
	case URL:
		return urlEscape(prefix, v)
	case Body:
		return bodyEscape(t.masked, prefix, v)
	case PromQL:
		return promEscape(prefix, v)
	case Arg:
		if out == "" && strings.HasPrefix(v, "-") {
			return "", errors.New("value starts with -, so it would be read as an option (fix: write the option's name literally before it, e.g. --cluster={{name}})")
		}
	case Program:
		return "", errors.New("value would choose the program (fix: name the program literally; pass cluster values as arguments or in env)")
	}
	return v, nil
}

// urlEscape is cluster value v where URL prefix leaves it: one DNS label in the host,
// escaped in the path, query or fragment; never the scheme.
func urlEscape(prefix, v string) (string, error) {
	switch urlPartAt(prefix) {
	case inAuthority:
		if !dnsLabel.MatchString(v) {
			return "", fmt.Errorf("value is not one DNS label, so it would change the URL's host (fix: %s)", urlHostFix)
		}
	case inQuery:
		return url.QueryEscape(v), nil
	case inPath:
		if v == "." || v == ".." {
			return "", errors.New("value is a . or .. path segment, which would move the request to another path (fix: give the cluster another name, or put it in the query)")
		}
		return url.PathEscape(v), nil
	case inFragment:
		return url.PathEscape(v), nil
	default: // TemplateProblem refused it
		return "", fmt.Errorf("value would set the URL's scheme (fix: %s)", urlHostFix)
	}
	return v, nil
}

// formBody is a form's text with its placeholders cut out: key=value pairs joined by &.
var formBody = regexp.MustCompile(`^[^&=\s]*=[^&\s]*(&[^&=\s]*=[^&\s]*)*$`)

// bodyEscape is cluster value v where the body's text (masked: its placeholders cut out)
// leaves it (prefix): escaped for a JSON, XML or form body (see Body); as written in other
// text.
func bodyEscape(masked, prefix, v string) (string, error) {
	switch body := strings.TrimSpace(masked); {
	case strings.HasPrefix(body, "{"), strings.HasPrefix(body, "["):
		if inJSONString(prefix) {
			return jsonEscape(v), nil
		}
		if !jsonScalar(v) {
			return "", errors.New("value outside a JSON string is not one JSON scalar (fix: put the placeholder inside quotes, \"{{…}}\")")
		}
	case strings.HasPrefix(body, "<"):
		return xmlEscape(prefix, v)
	case formBody.MatchString(body):
		return url.QueryEscape(v), nil
	}
	return v, nil
}

// xmlEscape is v XML-escaped, or, inside a CDATA section (where no entity is read), as
// written unless it would end the section.
func xmlEscape(prefix, v string) (string, error) {
	if open := strings.LastIndex(prefix, "<![CDATA["); open >= 0 && !strings.Contains(prefix[open:], "]]>") {
		if strings.Contains(v, "]]>") {
			return "", errors.New("value holds ]]>, which would end the CDATA section (fix: put the placeholder outside CDATA, where it is escaped)")
		}
		return v, nil
	}
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(v)) // a strings.Builder does not fail
	return b.String(), nil
}

// inJSONString reports whether the text after JSON prefix is inside a string literal.
func inJSONString(prefix string) bool {
	in := false
	for i := 0; i < len(prefix); i++ {
		switch c := prefix[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		}
	}
	return in
}

// jsonEscape is v as the inside of a JSON string: JSON-encoded, without its quotes.
func jsonEscape(v string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a string always encodes
	s := strings.TrimSuffix(b.String(), "\n")
	return s[1 : len(s)-1]
}

// jsonScalar reports whether v is one JSON number, string, true, false or null.
func jsonScalar(v string) bool {
	s := strings.TrimSpace(v)
	return json.Valid([]byte(s)) && s != "" && s[0] != '{' && s[0] != '['
}

// promEscape is cluster value v where PromQL prefix leaves it: inside a string literal,
// escaped for it; outside one, a name or number only.
func promEscape(prefix, v string) (string, error) {
	quote, comment := promLexAt(prefix)
	switch {
	case comment:
		if strings.ContainsAny(v, "\r\n") {
			return "", errors.New("value holds a line break, which would end the comment and add to the query (fix: give the cluster a single-line value)")
		}
		return v, nil
	case quote == '`':
		if strings.Contains(v, "`") {
			return "", errors.New("value holds a backtick, which would end the raw string (fix: quote the placeholder with \"{{…}}\")")
		}
		return v, nil
	case quote != 0:
		r := strings.NewReplacer(`\`, `\\`, string(quote), `\`+string(quote), "\n", `\n`, "\r", `\r`)
		return r.Replace(v), nil
	case !promName.MatchString(v):
		return "", errors.New("value outside a string literal is not a name or a number, so it would change the query (fix: quote the placeholder, e.g. cluster=\"{{name}}\")")
	}
	return v, nil
}

// promQuotes are the characters that open a PromQL string literal: double and single
// quotes, in which a backslash escapes, and the backtick of a raw string, in which none
// does.
const promQuotes = "\"'`"

// promLexAt is where the PromQL text after prefix is: in the string literal quote opens
// (0: in none), or in a # comment.
func promLexAt(prefix string) (quote byte, comment bool) {
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		switch {
		case comment:
			comment = c != '\n'
		case quote == 0 && c == '#':
			comment = true
		case quote == 0 && strings.IndexByte(promQuotes, c) >= 0:
			quote = c
		case quote != 0 && quote != '`' && c == '\\':
			i++
		case c == quote:
			quote = 0
		}
	}
	return quote, comment
}

// authorityEnd is the offset in masked text where a URL's scheme and authority end.
func authorityEnd(masked string) int {
	i := strings.Index(masked, "://")
	if i < 0 {
		return len(masked)
	}
	if j := strings.IndexAny(masked[i+3:], "/?#"); j >= 0 {
		return i + 3 + j
	}
	return len(masked)
}

// checkHost is the defence in depth of a filled URL field: the host of filled must be the
// host of its authority as filled (auth), so no value after it moved it.
func checkHost(filled, auth string) error {
	u, err := url.Parse(filled)
	if err != nil {
		return nil // a bad URL is the run's to report
	}
	a, err := url.Parse(auth)
	if err != nil || a.Scheme != u.Scheme || a.Host != u.Host || a.User.String() != u.User.String() {
		return fmt.Errorf("the filled URL's host is not the one the spec writes (fix: %s)", urlHostFix)
	}
	return nil
}
