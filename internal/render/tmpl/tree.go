package tmpl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/spec/templatecheck"
)

// Options are the ApplicationSet's templating switches.
type Options struct {
	GoTemplate        bool
	GoTemplateOptions []string
	// KeptLabels and KeptAnnotations are metadata keys a templatePatch cannot set, change
	// or remove: the caller's own, which its safety checks read. metadata.namespace and
	// spec.project are kept always, as Argo CD keeps them.
	KeptLabels, KeptAnnotations []string
	// Bounds hold every execution of a Go template string (zero: DefaultBounds).
	Bounds Bounds
}

func (o Options) bounds() Bounds {
	if o.Bounds == (Bounds{}) {
		return DefaultBounds
	}
	return o.Bounds
}

// FieldError is a template string that does not compile, and where it is in the template
// tree ("template.metadata.name", "template.spec.sources[1].path", or "templatePatch"). It
// is templatecheck's, so the spec points a render's error at its line (spec.Locate)
// without linking this package.
type FieldError = templatecheck.FieldError

// Slot marks a value in the template tree that the caller fills per child at render time
// (cmp-phase's own labels and annotations). It is never templated.
type Slot string

// node writes one JSON value.
type node interface {
	write(w *writer) error
}

type writer struct {
	ctx     context.Context
	bounds  Bounds
	buf     *bytes.Buffer
	scratch bytes.Buffer
	params  map[string]any
	slots   map[string]string
	raw     bool // no parameters: Argo CD returns the template untouched
}

type literal []byte

func (l literal) write(w *writer) error { w.buf.Write(l); return nil }

// strNode is a string of the template and its path there, for errors.
type strNode struct {
	s    *str
	path string
}

func (n strNode) write(w *writer) error {
	if w.raw || n.s.isLiteral() {
		writeJSONString(w.buf, n.s.src)
		return nil
	}
	w.scratch.Reset()
	if err := n.s.render(w.ctx, w.bounds, &w.scratch, w.params); err != nil {
		return &FieldError{Path: n.path, Err: err}
	}
	writeJSONBytes(w.buf, w.scratch.Bytes())
	return nil
}

func (n strNode) eval(w *writer) (string, error) {
	if w.raw || n.s.isLiteral() {
		return n.s.src, nil
	}
	w.scratch.Reset()
	if err := n.s.render(w.ctx, w.bounds, &w.scratch, w.params); err != nil {
		return "", &FieldError{Path: n.path, Err: err}
	}
	return w.scratch.String(), nil
}

type slotNode string

func (n slotNode) write(w *writer) error { writeJSONString(w.buf, w.slots[string(n)]); return nil }

type entry struct {
	key strNode
	val node
}

type objNode struct {
	entries   []entry // sorted by key source
	templated bool    // some key is templated: sort after rendering keys
}

func (n *objNode) write(w *writer) error {
	if !n.templated || w.raw {
		w.buf.WriteByte('{')
		for i, e := range n.entries {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			writeJSONString(w.buf, e.key.s.src)
			w.buf.WriteByte(':')
			if err := e.val.write(w); err != nil {
				return err
			}
		}
		w.buf.WriteByte('}')
		return nil
	}
	return n.writeTemplatedKeys(w)
}

// writeTemplatedKeys renders every key, then writes entries in the order of the rendered
// keys (encoding/json's map order); a later duplicate key wins, as in a Go map.
func (n *objNode) writeTemplatedKeys(w *writer) error {
	type kv struct {
		k string
		v []byte
	}
	byKey := map[string][]byte{}
	for _, e := range n.entries {
		k, err := e.key.eval(w)
		if err != nil {
			return err
		}
		outer := w.buf
		var vb bytes.Buffer
		w.buf = &vb
		err = e.val.write(w)
		w.buf = outer
		if err != nil {
			return err
		}
		byKey[k] = vb.Bytes()
	}
	kvs := make([]kv, 0, len(byKey))
	for k, v := range byKey {
		kvs = append(kvs, kv{k, v})
	}
	slices.SortFunc(kvs, func(a, b kv) int { return strings.Compare(a.k, b.k) })
	w.buf.WriteByte('{')
	for i, e := range kvs {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		writeJSONString(w.buf, e.k)
		w.buf.WriteByte(':')
		w.buf.Write(e.v)
	}
	w.buf.WriteByte('}')
	return nil
}

type arrNode []node

func (n arrNode) write(w *writer) error {
	w.buf.WriteByte('[')
	for i, e := range n {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		if err := e.write(w); err != nil {
			return err
		}
	}
	w.buf.WriteByte(']')
	return nil
}

// compileNode compiles a decoded JSON tree (json.Number for numbers, Slot for slots).
func compileNode(v any, o Options, path string) (node, error) {
	switch t := v.(type) {
	case string:
		s, err := compileStr(t, o)
		if err != nil {
			return nil, &FieldError{Path: path, Err: err}
		}
		return strNode{s: s, path: path}, nil
	case Slot:
		return slotNode(t), nil
	case map[string]any:
		return compileObject(t, o, path)
	case []any:
		out := make(arrNode, 0, len(t))
		for i, e := range t {
			n, err := compileNode(e, o, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return literal(b), nil
	}
}

func compileObject(m map[string]any, o Options, path string) (node, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	obj := &objNode{}
	for _, k := range keys {
		if m[k] == nil {
			continue // Argo CD drops nil map values
		}
		ks, err := compileStr(k, o)
		if err != nil {
			return nil, &FieldError{Path: path + "." + k, Err: fmt.Errorf("key: %w", err)}
		}
		val, err := compileNode(m[k], o, path+"."+k)
		if err != nil {
			return nil, err
		}
		obj.templated = obj.templated || !ks.isLiteral()
		obj.entries = append(obj.entries, entry{key: strNode{s: ks, path: path + "." + k}, val: val})
	}
	return obj, nil
}

// writeJSONBytes is writeJSONString for bytes (no string copy on the hot path).
func writeJSONBytes(buf *bytes.Buffer, s []byte) {
	for _, c := range s {
		if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= 0x80 {
			writeJSONString(buf, string(s))
			return
		}
	}
	buf.WriteByte('"')
	buf.Write(s)
	buf.WriteByte('"')
}

// writeJSONString writes s as a JSON string the way encoding/json does (HTML-safe escapes),
// so that output matches json.Marshal byte for byte.
func writeJSONString(buf *bytes.Buffer, s string) {
	simple := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= 0x80 {
			simple = false
			break
		}
	}
	if simple {
		buf.WriteByte('"')
		buf.WriteString(s)
		buf.WriteByte('"')
		return
	}
	b, _ := json.Marshal(s)
	buf.Write(b)
}
