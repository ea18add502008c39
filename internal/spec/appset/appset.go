package appset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/render/tmpl"
	"github.com/cmp-phase/cmp-phase/internal/spec/templatecheck"
)

func init() { templatecheck.Register(Check) }

// Check decodes a template into an Argo CD Application exactly as the ApplicationSet
// controller does, keeping only the fields Argo CD knows (an unknown field is a problem),
// and compiles it with its patch: the Application as JSON, and what is wrong with it.
func Check(in templatecheck.Input) (json.RawMessage, []templatecheck.Problem) {
	var t v1alpha1.ApplicationSetTemplate
	jd := json.NewDecoder(bytes.NewReader(in.Raw))
	jd.DisallowUnknownFields()
	if err := jd.Decode(&t); err != nil {
		return nil, []templatecheck.Problem{{Path: "spec.template", Fix: "check the field names against the Application spec", Msg: oneLine(err.Error())}}
	}
	var problems []templatecheck.Problem
	if t.Name == "" {
		problems = append(problems, templatecheck.Problem{Path: "spec.template.metadata.name", Fix: `set a name such as "{{name}}-app"`, Msg: "is required"})
	}
	app := v1alpha1.Application{Spec: t.Spec}
	app.Name, app.Namespace, app.Labels = t.Name, t.Namespace, t.Labels
	app.Annotations, app.Finalizers = t.Annotations, t.Finalizers
	tree, err := appTree(app)
	if err != nil {
		return nil, append(problems, templatecheck.Problem{Path: "spec.template", Msg: err.Error()})
	}
	if _, err := tmpl.Compile(tree, in.Patch, tmpl.Options{GoTemplate: in.GoTemplate, GoTemplateOptions: in.GoTemplateOptions}); err != nil {
		return nil, append(problems, compileProblem(err))
	}
	b, _ := json.Marshal(tree)
	return b, problems
}

// compileProblem is the problem of a template that does not compile: at the field it names,
// if it names one.
func compileProblem(err error) templatecheck.Problem {
	fix := "fix the template syntax"
	if errors.Is(err, tmpl.ErrRefused) {
		fix = "" // the error says its own fix
	}
	p := templatecheck.Problem{Path: "spec.template", Fix: fix}
	var fe *tmpl.FieldError
	if errors.As(err, &fe) {
		p.Field, p.Path = fe.Path, "spec."+fe.Path
		err = fe.Err
	}
	p.Msg = oneLine(err.Error())
	return p
}

// appTree is the Application as a JSON tree without status and creationTimestamp.
func appTree(app v1alpha1.Application) (map[string]any, error) {
	b, err := json.Marshal(app)
	if err != nil {
		return nil, fmt.Errorf("encode template: %w", err)
	}
	tree, err := templatecheck.DecodeTree(b)
	if err != nil {
		return nil, err
	}
	delete(tree, "status")
	if meta, ok := tree["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return tree, nil
}

// oneLine is s with its runs of white space, newlines included, as single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
