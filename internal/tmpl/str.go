package tmpl

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/template"

	"github.com/valyala/fasttemplate"
)

// str is one compiled string: a literal, a fasttemplate, or a Go template.
type str struct {
	lit string
	ft  *fasttemplate.Template
	gt  *template.Template
	src string
}

// isTemplated is Argo CD's test for fasttemplate mode: a line holding {{ ... }}.
var isTemplated = regexp.MustCompile(".*{{.*}}.*")

func compileStr(s string, o Options) (*str, error) {
	if o.GoTemplate {
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
		return &str{gt: t, src: s}, nil
	}
	if !isTemplated.MatchString(s) {
		return &str{lit: s, src: s}, nil
	}
	ft, err := fasttemplate.NewTemplate(s, "{{", "}}")
	if err != nil {
		return nil, fmt.Errorf("invalid template %q: %w", s, err)
	}
	return &str{ft: ft, src: s}, nil
}

// render writes the string for params into buf (unescaped).
func (s *str) render(buf *bytes.Buffer, params map[string]any) error {
	switch {
	case s.gt != nil:
		if err := s.gt.Execute(buf, params); err != nil {
			return fmt.Errorf("execute template %q: %w", s.src, err)
		}
	case s.ft != nil:
		_, err := s.ft.ExecuteFunc(buf, func(w io.Writer, tag string) (int, error) {
			key := strings.TrimSpace(tag)
			v, ok := params[key].(string)
			if key == "" || !ok {
				return fmt.Fprintf(w, "{{%s}}", tag)
			}
			return io.WriteString(w, v)
		})
		if err != nil {
			return fmt.Errorf("execute template %q: %w", s.src, err)
		}
	default:
		buf.WriteString(s.lit)
	}
	return nil
}

func (s *str) isLiteral() bool { return s.gt == nil && s.ft == nil }

// String is one compiled template string (for generator values and hook fields).
type String struct{ s *str }

// CompileString compiles one string with the ApplicationSet's templating switches.
func CompileString(s string, o Options) (*String, error) {
	c, err := compileStr(s, o)
	if err != nil {
		return nil, err
	}
	return &String{c}, nil
}

// Render renders the string for params; like Argo CD, no parameters leave it untouched.
func (s *String) Render(params map[string]any) (string, error) {
	if len(params) == 0 || s.s.isLiteral() {
		return s.s.src, nil
	}
	var b bytes.Buffer
	if err := s.s.render(&b, params); err != nil {
		return "", err
	}
	return b.String(), nil
}
