package hooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

func TestTemplateFillsClusterFieldsAndSecretsAndNamesNoValue(t *testing.T) {
	h := spec.Hook{Name: "health", Type: "http", HTTP: &spec.HTTPHook{URL: "https://{{name}}.example.com/{{ metadata.labels.env }}",
		Headers: map[string]string{"Authorization": "Bearer {{.secrets.hook-token.token}}"}}}
	vars := map[string]string{"name": "prod-1", "metadata.labels.env": "prod"}
	lookup := func(name, key string) (string, error) {
		if name == "hook-token" && key == "token" {
			return "s3cr3t", nil
		}
		return "", errors.New("not found")
	}
	got, secrets, err := Template(h, vars, lookup)
	if err != nil || got.HTTP.URL != "https://prod-1.example.com/prod" || got.HTTP.Headers["Authorization"] != "Bearer s3cr3t" || len(secrets) != 1 {
		t.Fatalf("%+v %v %v", got.HTTP, secrets, err)
	}
	if h.HTTP.Headers["Authorization"] != "Bearer {{.secrets.hook-token.token}}" {
		t.Fatal("the declared hook was changed")
	}
	for _, bad := range []string{"{{nope}}", "{{.secrets.other.token}}", "{{.secrets.justname}}"} {
		h.HTTP.URL = "https://x/" + bad
		if _, _, err := Template(h, vars, lookup); err == nil || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
