package secrettest

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Forms are secret s as a message or a log may quote it, by name: JSON-escaped (with and
// without HTML escaping), Go-quoted, base64 in each alphabet (padded or not, and inside a
// longer encoded text: a Basic auth header), HTML-escaped, hex and URL-escaped with
// lower-case %xx.
func Forms(s string) map[string]string {
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

var upperEscape = regexp.MustCompile(`%[0-9A-F]{2}`)

// lowerHexEscapes is a URL-escaped text with lower-case %xx escapes.
func lowerHexEscapes(s string) string {
	return upperEscape.ReplaceAllStringFunc(s, strings.ToLower)
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
