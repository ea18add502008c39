package tmpl

import (
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/argoproj/argo-cd/v3/applicationset/utils"
	"sigs.k8s.io/yaml"
)

// baseTemplate carries the function set Argo CD gives ApplicationSet Go templates: sprig's
// generic functions without env, expandenv and getHostByName, plus normalize, slugify,
// toYaml, fromYaml and fromYamlArray.
var baseTemplate = func() *template.Template {
	f := sprig.GenericFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	delete(f, "getHostByName")
	f["normalize"] = SanitizeName
	f["slugify"] = utils.SlugifyName
	f["toYaml"] = toYAML
	f["fromYaml"] = fromYAML
	f["fromYamlArray"] = fromYAMLArray
	return template.New("base").Funcs(f)
}()

func toYAML(v any) (string, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

func fromYAML(s string) (map[string]any, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	return m, nil
}

func fromYAMLArray(s string) ([]any, error) {
	a := []any{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		return nil, err
	}
	return a, nil
}
