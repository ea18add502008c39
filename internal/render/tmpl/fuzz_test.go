package tmpl

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// FuzzRender: any template strings (fasttemplate or Go templates, with a templatePatch) and
// parameters compile or are refused, and a compiled template renders valid JSON or an
// error — never a panic.
func FuzzRender(f *testing.F) {
	f.Add("app-{{name}}", "{{metadata.labels.env}}", "", "dev-1", false)
	f.Add("app-{{.name}}", `{{ index .metadata.labels "env" | upper }}`, "spec:\n  project: '{{.name}}'\n", "dev-1", true)
	f.Add("{{", "}}", "", "x", true)
	f.Add(`{{ range $i := until 10 }}{{ $i }}{{ end }}`, "", "", "x", true)
	f.Fuzz(func(t *testing.T, name, ns, patch, param string, goTemplate bool) {
		tree := map[string]any{"metadata": map[string]any{"name": name}, "spec": map[string]any{"destination": map[string]any{"namespace": ns}}}
		tpl, err := Compile(tree, patch, Options{GoTemplate: goTemplate, GoTemplateOptions: []string{"missingkey=error"}})
		if err != nil {
			return
		}
		params := map[string]any{"name": param, "metadata": map[string]any{"labels": map[string]any{"env": param}}}
		var buf bytes.Buffer
		if err := tpl.Render(context.Background(), &buf, params, nil); err != nil {
			return
		}
		if !json.Valid(buf.Bytes()) {
			t.Fatalf("rendered invalid JSON: %s", buf.Bytes())
		}
	})
}
