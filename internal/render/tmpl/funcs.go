package tmpl

import (
	"fmt"
	"reflect"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/argoproj/argo-cd/v3/applicationset/utils"
	"sigs.k8s.io/yaml"
)

// The functions compile puts into a template: stepFunc at the head of every loop body, one
// step of the execution's budget; enterFunc and leaveFunc around every template
// definition's body, a step and one level of template calls.
const (
	stepFunc  = "cmpPhaseStep"
	enterFunc = "cmpPhaseEnter"
	leaveFunc = "cmpPhaseLeave"
)

// argoFuncs are the functions Argo CD gives ApplicationSet Go templates: sprig's generic
// functions without env, expandenv and getHostByName, plus normalize, slugify, toYaml,
// fromYaml and fromYamlArray.
func argoFuncs() template.FuncMap {
	f := sprig.GenericFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	delete(f, "getHostByName")
	f["normalize"] = SanitizeName
	f["slugify"] = utils.SlugifyName
	f["toYaml"] = toYAML
	f["fromYaml"] = fromYAML
	f["fromYamlArray"] = fromYAMLArray
	return f
}

// builtins are text/template's own functions that can build text (a doubled string, a
// padded number): they are held to the budget like the rest. call is refused (template
// data holds no functions).
var builtins = template.FuncMap{
	"print":    fmt.Sprint,
	"printf":   fmt.Sprintf,
	"println":  fmt.Sprintln,
	"html":     template.HTMLEscaper,
	"js":       template.JSEscaper,
	"urlquery": template.URLQueryEscaper,
	"call":     func(...any) (string, error) { return "", nil },
}

// funcSet is every function a template may name: Argo CD's set and the builtins above.
var funcSet = func() template.FuncMap {
	f := argoFuncs()
	for k, v := range builtins {
		f[k] = v
	}
	return f
}()

// baseTemplate parses templates: the whole set by name (each bound to a budget only when it
// runs, see bind) and the step function.
var baseTemplate = func() *template.Template {
	f := template.FuncMap{}
	for k := range marks {
		f[k] = func() string { return "" }
	}
	for k, v := range funcSet {
		f[k] = v
	}
	return template.New("base").Funcs(f)
}()

var errorType = reflect.TypeFor[error]()

// bind is the function set held to b: each call first reserves what its cost says it will
// build, or fails without running.
func bind(b *budget) template.FuncMap {
	m := make(template.FuncMap, len(funcSet)+1)
	for name, fn := range funcSet {
		m[name] = bound(name, fn, b)
	}
	m[stepFunc] = func() (string, error) { return "", b.step() }
	m[enterFunc] = func() (string, error) { return "", b.enter() }
	m[leaveFunc] = func() string { b.depth--; return "" }
	return m
}

// bound is fn held to b, with fn's signature and an error result.
func bound(name string, fn any, b *budget) any {
	if reason, ok := refused[name]; ok {
		return func(...any) (string, error) { return "", refusal(name, reason) }
	}
	fv := reflect.ValueOf(fn)
	ft := fv.Type()
	wt := ft
	hasErr := ft.NumOut() == 2
	if !hasErr {
		ins := make([]reflect.Type, ft.NumIn())
		for i := range ins {
			ins[i] = ft.In(i)
		}
		wt = reflect.FuncOf(ins, []reflect.Type{ft.Out(0), errorType}, ft.IsVariadic())
	}
	est, scale := costs[name], max(costScale[name], 1)
	return reflect.MakeFunc(wt, func(args []reflect.Value) []reflect.Value {
		c := call{args: args, limit: b.bytes}
		n := 0
		if est != nil {
			n = est(c)
		} else {
			n = mul(c.size(0), scale)
		}
		if err := b.reserve(name, add(n, nodeCost)); err != nil {
			return []reflect.Value{reflect.Zero(wt.Out(0)), reflect.ValueOf(&err).Elem()}
		}
		var res []reflect.Value
		if ft.IsVariadic() {
			res = fv.CallSlice(args)
		} else {
			res = fv.Call(args)
		}
		if !hasErr {
			res = append(res, reflect.Zero(errorType))
		}
		return res
	}).Interface()
}

func toYAML(v any) (string, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

func fromYAML(s string) (map[string]any, error) {
	if err := noAliases(s); err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	return m, nil
}

func fromYAMLArray(s string) ([]any, error) {
	if err := noAliases(s); err != nil {
		return nil, err
	}
	a := []any{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		return nil, err
	}
	return a, nil
}
