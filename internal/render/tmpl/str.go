package tmpl

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/valyala/fasttemplate"
)

// str is one compiled string: a literal, fasttemplate parts, or a Go template.
type str struct {
	lit   string
	parts []part // fasttemplate, split once
	gt    *template.Template
	run   *runner      // gt's executions, each held to bounds
	fast  []fieldPiece // Go template made only of text and field chains
	src   string
}

// part is literal text or, when tag is set, the raw text between {{ and }}.
type part struct {
	text string
	key  string // trimmed tag
	tag  bool
}

// isTemplated is Argo CD's test for fasttemplate mode: a line holding {{ ... }}.
var isTemplated = regexp.MustCompile(".*{{.*}}.*")

func compileStr(s string, o Options) (*str, error) {
	if o.GoTemplate {
		if !strings.Contains(s, "{{") {
			// No action: text/template would print the text as it is.
			return &str{lit: s, src: s}, nil
		}
		t, err := baseTemplate.Clone()
		if err != nil {
			return nil, fmt.Errorf("clone base template: %w", err)
		}
		for _, opt := range o.GoTemplateOptions {
			t = t.Option(opt)
		}
		if t, err = t.Parse(s); err != nil {
			return nil, fmt.Errorf("parse template %q: %w", s, err)
		}
		fast, _ := fieldChains(t)
		if err := instrument(t, o.bounds()); err != nil {
			return nil, fmt.Errorf("template %q: %w", s, err)
		}
		return &str{gt: t, run: newRunner(t), fast: fast, src: s}, nil
	}
	if !isTemplated.MatchString(s) {
		return &str{lit: s, src: s}, nil
	}
	// fasttemplate decides validity exactly as Argo CD's Replace does; then we keep the
	// split so rendering needs no closure per string.
	if _, err := fasttemplate.NewTemplate(s, "{{", "}}"); err != nil {
		return nil, fmt.Errorf("invalid template %q: %w", s, err)
	}
	return &str{parts: splitTags(s), src: s}, nil
}

// splitTags splits a valid fasttemplate the way fasttemplate scans it: text up to "{{",
// the tag up to the next "}}", and so on.
func splitTags(s string) []part {
	var out []part
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+2:], "}}")
		if j < 0 {
			break
		}
		if i > 0 {
			out = append(out, part{text: s[:i]})
		}
		tag := s[i+2 : i+2+j]
		out = append(out, part{text: tag, key: strings.TrimSpace(tag), tag: true})
		s = s[i+2+j+2:]
	}
	if s != "" {
		out = append(out, part{text: s})
	}
	return out
}

// render writes the string for params into buf (unescaped), a Go template held to bounds.
func (s *str) render(ctx context.Context, bounds Bounds, buf *bytes.Buffer, params map[string]any) error {
	switch {
	case s.gt != nil:
		if s.fast != nil && renderFields(buf, s.fast, params) {
			return nil
		}
		if err := s.run.run(ctx, bounds, buf, params); err != nil {
			if be, ok := boundOf(err); ok {
				return fmt.Errorf("template %q: %w", s.src, be)
			}
			return fmt.Errorf("execute template %q: %w", s.src, err)
		}
	case s.parts != nil:
		for _, p := range s.parts {
			if !p.tag {
				buf.WriteString(p.text)
				continue
			}
			if v, ok := params[p.key].(string); ok && p.key != "" {
				buf.WriteString(v)
				continue
			}
			buf.WriteString("{{")
			buf.WriteString(p.text)
			buf.WriteString("}}")
		}
	default:
		buf.WriteString(s.lit)
	}
	return nil
}

func (s *str) isLiteral() bool { return s.gt == nil && s.parts == nil }

// String is one compiled template string (for generator values and hook fields).
type String struct {
	s      *str
	bounds Bounds
}

// CompileString compiles one string with the ApplicationSet's templating switches.
func CompileString(s string, o Options) (*String, error) {
	c, err := compileStr(s, o)
	if err != nil {
		return nil, err
	}
	return &String{s: c, bounds: o.bounds()}, nil
}

// Render renders the string for params, held to o's bounds and ctx; like Argo CD, no
// parameters leave it untouched.
func (s *String) Render(ctx context.Context, params map[string]any) (string, error) {
	if len(params) == 0 || s.s.isLiteral() {
		return s.s.src, nil
	}
	var b bytes.Buffer
	if err := s.s.render(ctx, s.bounds, &b, params); err != nil {
		return "", err
	}
	return b.String(), nil
}
