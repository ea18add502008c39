package tmpl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v3/applicationset/utils"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// Template is a compiled ApplicationSet template.
type Template struct {
	opts   Options
	root   node
	name   node // metadata.name
	labels node // metadata.labels
	patch  *str
}

// Compile compiles tree, the template as a decoded JSON object (numbers as json.Number;
// Slot values for caller-filled fields), and the optional templatePatch.
func Compile(tree map[string]any, templatePatch string, o Options) (*Template, error) {
	root, err := compileNode(tree, o, "template")
	if err != nil {
		return nil, err
	}
	t := &Template{opts: o, root: root}
	meta, _ := tree["metadata"].(map[string]any)
	if name, ok := meta["name"]; ok {
		if t.name, err = compileNode(name, o, "template.metadata.name"); err != nil {
			return nil, err
		}
	}
	if l, ok := meta["labels"]; ok {
		if t.labels, err = compileNode(l, o, "template.metadata.labels"); err != nil {
			return nil, err
		}
	}
	if templatePatch != "" {
		if t.patch, err = compileStr(templatePatch, o); err != nil {
			return nil, &FieldError{Path: "templatePatch", Err: err}
		}
	}
	return t, nil
}

// Render appends the child rendered for params to buf as one line of JSON.
func (t *Template) Render(ctx context.Context, buf *bytes.Buffer, params map[string]any, slots map[string]string) error {
	w := t.writer(ctx, params)
	w.buf, w.slots = buf, slots
	if t.patch == nil {
		return t.root.write(w)
	}
	var tmp bytes.Buffer
	w.buf = &tmp
	if err := t.root.write(w); err != nil {
		return err
	}
	out, err := t.applyPatch(ctx, tmp.Bytes(), params)
	if err != nil {
		return err
	}
	buf.Write(out)
	return nil
}

// writer is a writer of t's output for params, its Go templates held to t's bounds and ctx.
func (t *Template) writer(ctx context.Context, params map[string]any) *writer {
	return &writer{ctx: ctx, bounds: t.opts.bounds(), params: params, raw: len(params) == 0}
}

// Name renders only the child's name.
func (t *Template) Name(ctx context.Context, params map[string]any) (string, error) {
	if t.patch != nil {
		name, _, err := t.Meta(ctx, params)
		return name, err
	}
	n, ok := t.name.(strNode)
	if !ok {
		return "", nil
	}
	return n.eval(t.writer(ctx, params))
}

// Meta renders only the child's name and labels (for keys and RollingSync selection).
func (t *Template) Meta(ctx context.Context, params map[string]any) (string, map[string]string, error) {
	w := t.writer(ctx, params)
	var name string
	if n, ok := t.name.(strNode); ok {
		v, err := n.eval(w)
		if err != nil {
			return "", nil, err
		}
		name = v
	}
	var labels map[string]string
	if t.labels != nil {
		var b bytes.Buffer
		w.buf = &b
		if err := t.labels.write(w); err != nil {
			return "", nil, err
		}
		if err := json.Unmarshal(b.Bytes(), &labels); err != nil {
			return "", nil, fmt.Errorf("template.metadata.labels: %w", err)
		}
	}
	if t.patch != nil {
		return t.patchedMeta(ctx, name, labels, params)
	}
	return name, labels, nil
}

func (t *Template) patchedMeta(ctx context.Context, name string, labels map[string]string, params map[string]any) (string, map[string]string, error) {
	var b bytes.Buffer
	if err := t.Render(ctx, &b, params, nil); err != nil {
		return "", nil, err
	}
	var app struct {
		Metadata struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b.Bytes(), &app); err != nil {
		return "", nil, fmt.Errorf("patched child: %w", err)
	}
	return app.Metadata.Name, app.Metadata.Labels, nil
}

// applyPatch renders the templatePatch, strategic-merges it into the child as Argo CD does
// and keeps what a patch cannot change: spec.project and metadata.namespace (Argo CD resets
// both) and the caller's kept labels and annotations.
func (t *Template) applyPatch(ctx context.Context, child []byte, params map[string]any) ([]byte, error) {
	var pb bytes.Buffer
	if err := t.patch.render(ctx, t.opts.bounds(), &pb, params); err != nil {
		return nil, &FieldError{Path: "templatePatch", Err: err}
	}
	if err := noAliases(pb.String()); err != nil {
		return nil, fmt.Errorf("templatePatch: %w", err)
	}
	patch, err := utils.ConvertYAMLToJSON(pb.String())
	if err != nil {
		return nil, fmt.Errorf("templatePatch: convert to json: %w", err)
	}
	if err := json.Unmarshal([]byte(patch), &v1alpha1.Application{}); err != nil {
		return nil, fmt.Errorf("templatePatch: invalid %q: %w", oneLine(patch), err)
	}
	merged, err := strategicpatch.StrategicMergePatch(child, []byte(patch), v1alpha1.Application{})
	if err != nil {
		return nil, fmt.Errorf("templatePatch: apply: %w", err)
	}
	before, err := decodeObject(child)
	if err != nil {
		return nil, fmt.Errorf("templatePatch: decode: %w", err)
	}
	m, err := decodeObject(merged)
	if err != nil {
		return nil, fmt.Errorf("templatePatch: decode: %w", err)
	}
	t.keep(before, m)
	return json.Marshal(m)
}

// keep restores in after what a patch cannot change, as before has it.
func (t *Template) keep(before, after map[string]any) {
	if spec, ok := after["spec"].(map[string]any); ok {
		if p := field(before, "spec", "project"); p != nil {
			spec["project"] = p
		} else {
			delete(spec, "project")
		}
	}
	meta, ok := after["metadata"].(map[string]any)
	if !ok {
		meta = map[string]any{}
		after["metadata"] = meta
	}
	if ns := field(before, "metadata", "namespace"); ns != nil {
		meta["namespace"] = ns
	} else {
		delete(meta, "namespace")
	}
	keepKeys(meta, before, "labels", t.opts.KeptLabels)
	keepKeys(meta, before, "annotations", t.opts.KeptAnnotations)
}

// keepKeys sets meta[kind][k] for each kept k to what before's metadata has (or removes it).
func keepKeys(meta, before map[string]any, kind string, kept []string) {
	if len(kept) == 0 {
		return
	}
	was, _ := field(before, "metadata", kind).(map[string]any)
	m, ok := meta[kind].(map[string]any)
	if !ok {
		m = map[string]any{}
		meta[kind] = m
	}
	for _, k := range kept {
		if v, ok := was[k]; ok {
			m[k] = v
		} else {
			delete(m, k)
		}
	}
}

// field is obj's value at path, or nil.
func field(obj map[string]any, path ...string) any {
	var v any = obj
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// decodeObject decodes one JSON object, numbers as json.Number.
func decodeObject(b []byte) (map[string]any, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return m, dec.Decode(&m)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
