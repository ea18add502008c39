package tmpl

import (
	"bytes"
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
			return nil, fmt.Errorf("templatePatch: %w", err)
		}
	}
	return t, nil
}

// Render appends the child rendered for params to buf as one line of JSON.
func (t *Template) Render(buf *bytes.Buffer, params map[string]any, slots map[string]string) error {
	w := &writer{buf: buf, params: params, slots: slots, raw: len(params) == 0}
	if t.patch == nil {
		return t.root.write(w)
	}
	var tmp bytes.Buffer
	w.buf = &tmp
	if err := t.root.write(w); err != nil {
		return err
	}
	out, err := t.applyPatch(tmp.Bytes(), params)
	if err != nil {
		return err
	}
	buf.Write(out)
	return nil
}

// Name renders only the child's name.
func (t *Template) Name(params map[string]any) (string, error) {
	if t.patch != nil {
		name, _, err := t.Meta(params)
		return name, err
	}
	n, ok := t.name.(strNode)
	if !ok {
		return "", nil
	}
	return n.eval(&writer{params: params, raw: len(params) == 0})
}

// Meta renders only the child's name and labels (for keys and RollingSync selection).
func (t *Template) Meta(params map[string]any) (string, map[string]string, error) {
	w := &writer{params: params, raw: len(params) == 0}
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
		return t.patchedMeta(name, labels, params)
	}
	return name, labels, nil
}

func (t *Template) patchedMeta(name string, labels map[string]string, params map[string]any) (string, map[string]string, error) {
	var b bytes.Buffer
	if err := t.Render(&b, params, nil); err != nil {
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
// (the project cannot be changed by a patch).
func (t *Template) applyPatch(child []byte, params map[string]any) ([]byte, error) {
	var pb bytes.Buffer
	if err := t.patch.render(&pb, params); err != nil {
		return nil, fmt.Errorf("templatePatch: %w", err)
	}
	patch, err := utils.ConvertYAMLToJSON(pb.String())
	if err != nil {
		return nil, fmt.Errorf("templatePatch: convert to json: %w", err)
	}
	if err := json.Unmarshal([]byte(patch), &v1alpha1.Application{}); err != nil {
		return nil, fmt.Errorf("templatePatch: invalid %q: %w", oneLine(patch), err)
	}
	var before struct {
		Spec struct {
			Project string `json:"project"`
		} `json:"spec"`
	}
	_ = json.Unmarshal(child, &before)
	merged, err := strategicpatch.StrategicMergePatch(child, []byte(patch), v1alpha1.Application{})
	if err != nil {
		return nil, fmt.Errorf("templatePatch: apply: %w", err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(merged))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("templatePatch: decode: %w", err)
	}
	if spec, ok := m["spec"].(map[string]any); ok {
		spec["project"] = before.Spec.Project
	}
	return json.Marshal(m)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
