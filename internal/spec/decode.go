package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// Error is one problem in a spec, located by file, line and field path, with a fix.
type Error struct {
	File string
	Line int
	Path string
	Msg  string
	Fix  string
}

func (e *Error) Error() string {
	at := fmt.Sprintf("%s:%d", e.File, e.Line)
	if e.Line == 0 { // a problem of the whole file or directory: no line to name
		at = e.File
	}
	s := fmt.Sprintf("%s: %s: %s", at, e.Path, e.Msg)
	if e.Fix != "" {
		s += " (fix: " + e.Fix + ")"
	}
	return s
}

// Errors are all problems found in one spec, in document order.
type Errors []*Error

// Error joins the problems on one line; use the slice to print one per line.
func (es Errors) Error() string {
	lines := es.Lines()
	out := strings.Join(lines, "; ")
	if len(out) > maxErrorText { // Argo CD shows it as one condition: keep it readable
		out = out[:maxErrorText-len(" …")] + " …"
	}
	return out
}

// At most maxProblems problems are told, then how many more; the text is at most
// maxErrorText bytes.
const (
	maxProblems  = 20
	maxErrorText = 2048
)

// Lines are the distinct problems, one a line, at most maxProblems, then "and N more".
func (es Errors) Lines() []string {
	var lines []string
	seen := map[string]bool{}
	for _, e := range es {
		if l := e.Error(); !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	if n := len(lines) - maxProblems; n > 0 {
		lines = append(lines[:maxProblems], fmt.Sprintf("and %d more", n))
	}
	return lines
}

// dec walks YAML nodes, collecting located errors instead of stopping at the first.
type dec struct {
	file  string
	errs  Errors
	sites []hookSite // every hook read, for CheckLimits
	notes Errors     // how a spelling was read (failurePolicy: Abort is abort), for validate
}

func (d *dec) fail(n *yaml.Node, path, fix, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	if path == "" {
		path = "(document)"
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...), Fix: fix})
}

// fields returns a mapping's values by key and reports keys outside allowed.
func (d *dec) fields(n *yaml.Node, path string, allowed ...string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n == nil {
		return out
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "write a mapping here (key: value lines, as the documentation's examples show)", "must be a mapping, not %s", kindName(n))
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			d.fail(k, join(path, fmt.Sprintf("[key %d]", i/2)), "write plain, non-empty string keys", "invalid key")
			continue
		}
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			d.fail(k, join(path, k.Value), "use one of: "+strings.Join(allowed, ", "), "unknown field %q", k.Value)
			continue
		}
		if _, dup := out[k.Value]; dup {
			d.fail(k, join(path, k.Value), "keep one", "duplicate field")
		}
		out[k.Value] = v
	}
	return out
}

func (d *dec) str(n *yaml.Node, path string) string {
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		d.fail(n, path, "", "must be a string, not %s", kindName(n))
		return ""
	}
	return n.Value
}

func (d *dec) required(m map[string]*yaml.Node, parent *yaml.Node, path, key, fix string) *yaml.Node {
	n, ok := m[key]
	if !ok || n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		if parent == nil || parent.Kind != yaml.MappingNode {
			return nil // the parent is missing or not a mapping: said already, once
		}
		d.fail(parent, join(path, key), fix, "is required")
		return nil
	}
	return n
}

func (d *dec) boolean(n *yaml.Node, path string) bool {
	if n == nil {
		return false
	}
	b, err := strconv.ParseBool(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		d.fail(n, path, "write true or false", "must be a boolean")
	}
	return b
}

func (d *dec) integer(n *yaml.Node, path string) (int, bool) {
	if n == nil {
		return 0, false
	}
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || n.Tag == "!!str" {
		d.fail(n, path, "write a whole number", "must be an integer, not %q", n.Value)
		return 0, false
	}
	return v, true
}

func (d *dec) strList(n *yaml.Node, path string) []string {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.fail(n, path, "", "must be a list, not %s", kindName(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, c := range n.Content {
		out = append(out, d.str(c, fmt.Sprintf("%s[%d]", path, i)))
	}
	return out
}

func (d *dec) strMap(n *yaml.Node, path string) map[string]string {
	if n == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range d.fields(n, path) {
		out[k] = d.str(v, join(path, k))
	}
	return out
}

func (d *dec) seq(n *yaml.Node, path string) []*yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.fail(n, path, "", "must be a list, not %s", kindName(n))
		return nil
	}
	return n.Content
}

func (d *dec) duration(n *yaml.Node, path string, def time.Duration) time.Duration {
	if n == nil {
		return def
	}
	v, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < 0 {
		d.fail(n, path, `write a Go duration such as "30s", "5m" or "1h"`, "invalid duration %q", n.Value)
		return def
	}
	return v
}

func (d *dec) oneOf(n *yaml.Node, path, def string, allowed ...string) string {
	if n == nil {
		return def
	}
	v := d.str(n, path)
	if !slices.Contains(allowed, v) {
		d.fail(n, path, "use one of: "+strings.Join(allowed, ", "), "unknown value %q", v)
		return def
	}
	return v
}

// decodeAsKubectl decodes a node the way kubectl and the API server read YAML
// (sigs.k8s.io/yaml: YAML 1.1 scalars, so y/on/off are booleans; numbers as float64), which
// is what Argo CD's ApplicationSet controller sees.
func (d *dec) decodeAsKubectl(n *yaml.Node, path string, v any) {
	if n == nil {
		return
	}
	b, err := yaml.Marshal(n)
	if err == nil {
		err = sigsyaml.Unmarshal(b, v)
	}
	if err != nil {
		d.fail(n, path, "", "%s", oneLine(err.Error()))
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("the scalar %q", n.Value)
	default:
		return "an alias or document"
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// DescribeNode names a YAML node's kind for a message: a mapping, a list, the scalar "x".
func DescribeNode(n *yaml.Node) string { return kindName(n) }

// OneLine is s with every run of white space (new lines too) one space, for a message.
func OneLine(s string) string { return oneLine(s) }

// JoinPath is the field path key under path.
func JoinPath(path, key string) string { return join(path, key) }
