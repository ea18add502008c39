package hooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

func TestTemplateFillsClusterFieldsAndSecretsAndNamesNoValue(t *testing.T) {
	block := &urlBlock{URL: "https://{{name}}.example.com/{{ metadata.labels.env }}",
		Headers: map[string]string{"Authorization": "Bearer {{.secrets.hook-token.token}}"}}
	h := spec.Hook{Name: "health", Type: "http", Block: block}
	vars := map[string]string{"name": "prod-1", "metadata.labels.env": "prod"}
	lookup := func(name, key string) (string, error) {
		if name == "hook-token" && key == "token" {
			return "s3cr3t", nil
		}
		return "", errors.New("not found")
	}
	got, secrets, err := Template(h, vars, lookup)
	if filled := got.Block.(*urlBlock); err != nil || filled.URL != "https://prod-1.example.com/prod" || filled.Headers["Authorization"] != "Bearer s3cr3t" || len(secrets) != 1 {
		t.Fatalf("%+v %v %v", filled, secrets, err)
	}
	if block.Headers["Authorization"] != "Bearer {{.secrets.hook-token.token}}" {
		t.Fatal("the declared hook was changed")
	}
	seedBody := spec.Hook{Name: "notify", Type: "http", Block: &urlBlock{URL: "https://chat.example.com", Body: `{"text": "for {{ .appset.name }} in {{.phase.name}}"}`}}
	if got, _, err := Template(seedBody, PhaseVars("guestbook", "argocd", "prod"), lookup); err != nil || got.Block.(*urlBlock).Body != `{"text": "for guestbook in prod"}` {
		t.Fatalf("seed 000's {{ .appset.name }}: %v %v", got.Block, err)
	}
	clusterVars := PhaseVars("guestbook", "argocd", "prod") // seed 000's smoke-tests per cluster: internal/hooks/commandhook
	clusterVars["name"] = "prod-us-west"
	missing := spec.Hook{Name: "h", Type: "http", Block: &urlBlock{URL: "https://{{metadata.labels.region}}.example.com"}}
	if _, _, err := Template(missing, clusterVars, lookup); err == nil || !strings.Contains(err.Error(), `"metadata.labels.region" has no value for this cluster`) {
		t.Fatalf("a label the cluster lacks: %v", err)
	}
	for _, bad := range []string{"{{nope}}", "{{.secrets.other.token}}", "{{.secrets.justname}}"} {
		block.URL = "https://x/" + bad
		if _, _, err := Template(h, vars, lookup); err == nil || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
