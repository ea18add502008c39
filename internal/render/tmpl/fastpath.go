package tmpl

import (
	"bytes"
	"text/template"
	"text/template/parse"
)

// fieldPiece is literal text, or a chain of field names ({{.a.b}}) when fields is set,
// optionally indexed by a literal key ({{index .a.b "k"}}).
type fieldPiece struct {
	text   string
	fields []string
}

// fieldChains returns the pieces of a Go template made only of text and plain field chains
// such as {{.name}} or {{ .values.chart }}; ok is false for anything else (functions,
// pipelines, conditionals, variables), which always runs through text/template.
func fieldChains(t *template.Template) ([]fieldPiece, bool) {
	if t.Tree == nil || t.Tree.Root == nil || len(t.Tree.Root.Nodes) == 0 {
		return nil, false
	}
	var out []fieldPiece
	for _, n := range t.Tree.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			out = append(out, fieldPiece{text: string(n.Text)})
		case *parse.ActionNode:
			p := n.Pipe
			if p == nil || len(p.Decl) > 0 || len(p.Cmds) != 1 {
				return nil, false
			}
			fields, ok := chainOf(p.Cmds[0].Args)
			if !ok {
				return nil, false
			}
			out = append(out, fieldPiece{fields: fields})
		default:
			return nil, false
		}
	}
	return out, true
}

// chainOf reads {{.a.b}} or {{index .a.b "k"}} (the builtin index, which the ApplicationSet
// function set does not override) as the key chain a, b[, k].
func chainOf(args []parse.Node) ([]string, bool) {
	switch len(args) {
	case 1:
		f, ok := args[0].(*parse.FieldNode)
		if !ok {
			return nil, false
		}
		return f.Ident, true
	case 3:
		id, ok1 := args[0].(*parse.IdentifierNode)
		f, ok2 := args[1].(*parse.FieldNode)
		k, ok3 := args[2].(*parse.StringNode)
		if !ok1 || !ok2 || !ok3 || id.Ident != "index" {
			return nil, false
		}
		return append(append([]string(nil), f.Ident...), k.Text), true
	default:
		return nil, false
	}
}

// renderFields writes the pieces when every chain resolves to a string through maps; it
// returns false (having written nothing) otherwise, and the caller runs the real template.
// A string found by map lookups prints as itself in text/template, so the output is equal.
func renderFields(buf *bytes.Buffer, pieces []fieldPiece, params map[string]any) bool {
	var vals [8]string
	n := 0
	for _, p := range pieces {
		if p.fields == nil {
			continue
		}
		if n == len(vals) {
			return false
		}
		s, ok := lookup(params, p.fields)
		if !ok {
			return false
		}
		vals[n] = s
		n++
	}
	n = 0
	for _, p := range pieces {
		if p.fields == nil {
			buf.WriteString(p.text)
			continue
		}
		buf.WriteString(vals[n])
		n++
	}
	return true
}

func lookup(params map[string]any, fields []string) (string, bool) {
	var v any = params
	for _, f := range fields {
		switch m := v.(type) {
		case map[string]any:
			x, ok := m[f]
			if !ok {
				return "", false
			}
			v = x
		case map[string]string:
			x, ok := m[f]
			if !ok {
				return "", false
			}
			v = x
		default:
			return "", false
		}
	}
	s, ok := v.(string)
	return s, ok
}
