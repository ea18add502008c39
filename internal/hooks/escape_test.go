package hooks

import (
	"net/url"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// urlField is a block whose one field is a URL, as an http hook's url.
type urlField struct{ URL string }

func (b *urlField) Fill(f func(string) string) spec.HookBlock { return b.FillFields(AnyField(f)) }

func (b *urlField) FillFields(f func(Field, string) string) spec.HookBlock {
	return &urlField{URL: f(Field{Path: "x.url", In: URL}, b.URL)}
}

// TestTemplateProblemNamesThePartOfTheURL: what validate refuses, by the part of the URL a
// cluster field would set; a phase variable or secret is never refused there.
func TestTemplateProblemNamesThePartOfTheURL(t *testing.T) {
	for s, want := range map[string]string{
		"{{server}}":                                                "scheme",
		"https://{{name}}":                                          "host",
		"https://x{{name}}.example.com":                             "host",
		"https://{{name}}.example.com:{{project}}/":                 "port",
		"https://{{name}}@x.example.com/":                           "user info",
		"https://{{name}}.example.com/{{name}}?q={{name}}#{{name}}": "",
		"https://{{ .appset.name }}/{{name}}":                       "",
		"{{.secrets.a.b}}":                                          "",
		"https://x.example.com/{{metadata.labels.a/b}}":             "",
	} {
		problem, fix := TemplateProblem(URL, s)
		if want == "" && problem != "" || want != "" && (!strings.HasSuffix(problem, "URL's "+want) || fix != urlHostFix) {
			t.Errorf("%s: %q %q, want the URL's %q", s, problem, fix, want)
		}
	}
}

// FuzzURLTemplateKeepsTheLiteralHost: whatever the template after a literal host and
// whatever the cluster's value, a filled URL goes to the host the spec writes, or to one
// DNS label under its literal domain; else Template refuses it.
func FuzzURLTemplateKeepsTheLiteralHost(f *testing.F) {
	for _, v := range []string{"attacker.example/#", "@evil.example", "x?a=1#", "a\nb", `x","y":"`, "--k", "%2F..%2F", "prod-1"} {
		f.Add("/c/{{name}}?q={{name}}#{{name}}", v, false)
		f.Add("/p/{{name}}", v, true)
	}
	f.Fuzz(func(t *testing.T, rest, v string, label bool) {
		if rest != "" && !strings.ContainsAny(rest[:1], "/?#") {
			return // rest would be part of the host the spec writes
		}
		literal, s := "hooks.example.com", "https://hooks.example.com"+rest
		if label {
			literal, s = v+".example.com", "https://{{name}}.example.com"+rest
		}
		h, _, err := Template(spec.Hook{Name: "h", Block: &urlField{URL: s}}, map[string]string{"name": v, ".appset.name": "guestbook"}, nil)
		if err != nil {
			return
		}
		filled := h.Block.(*urlField).URL
		if u, err := url.Parse(filled); err == nil && (u.Host != literal || u.User != nil || u.Scheme != "https") {
			t.Fatalf("%q with %q: filled %q goes to %q", s, v, filled, u.Host)
		}
	})
}
