package spec

import (
	"errors"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/cmp-phase/cmp-phase/internal/spec/templatecheck"
)

// fieldNode is the YAML node of a template field, by the path tmpl names it with
// ("template.metadata.annotations.example.com/x", "template.spec.sources[1].path",
// "templatePatch"), so an error points at its own line; the template (or patch) node when
// the path leads nowhere.
func fieldNode(template, patch *yaml.Node, path string) *yaml.Node {
	if path == "templatePatch" {
		return patch
	}
	rest, ok := strings.CutPrefix(path, "template")
	if !ok {
		return template
	}
	n := template
	for rest != "" && n != nil {
		var next *yaml.Node
		next, rest = step(n, rest)
		if next == nil {
			return n
		}
		n = next
	}
	if n == nil {
		return template
	}
	return n
}

// step walks one path element (".key" — the longest key that fits, as keys hold dots —
// or "[i]") from mapping or sequence n.
func step(n *yaml.Node, rest string) (*yaml.Node, string) {
	switch {
	case strings.HasPrefix(rest, "[") && n.Kind == yaml.SequenceNode:
		end := strings.IndexByte(rest, ']')
		i, err := strconv.Atoi(rest[1:max(end, 1)])
		if end < 0 || err != nil || i < 0 || i >= len(n.Content) {
			return nil, rest
		}
		return n.Content[i], rest[end+1:]
	case strings.HasPrefix(rest, ".") && n.Kind == yaml.MappingNode:
		var best *yaml.Node
		bestLen := 0
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if len(k) > bestLen && strings.HasPrefix(rest[1:], k) && (len(rest) == len(k)+1 || strings.ContainsRune(".[", rune(rest[len(k)+1]))) {
				best, bestLen = n.Content[i+1], len(k)
			}
		}
		if best == nil {
			return nil, rest
		}
		return best, rest[bestLen+1:]
	}
	return nil, rest
}

// templateLines are the lines of every field under spec.template and of
// spec.templatePatch, by the path tmpl names them with.
func templateLines(template, patch *yaml.Node) map[string]int {
	out := map[string]int{}
	if patch != nil {
		out["templatePatch"] = patch.Line
	}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		out[path] = n.Line
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], path+"."+n.Content[i].Value)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, path+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	if template != nil {
		walk(template, "template")
	}
	return out
}

// Locate points an error of rendering s's template at its file and line when it names a
// template field (a *templatecheck.FieldError, as tmpl reports it), as a spec error; other
// errors stay as they are.
func (s *Spec) Locate(err error) error {
	var fe *templatecheck.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	line, ok := s.TemplateLines[fe.Path]
	if !ok {
		return err
	}
	msg := strings.Replace(err.Error(), fe.Path+": ", "", 1) // the error without its path, which Error says
	return Errors{&Error{File: s.File, Line: line, Path: "spec." + fe.Path, Msg: oneLine(msg)}}
}
