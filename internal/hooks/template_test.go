package hooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

func TestTemplateFillsClusterFieldsAndSecretsAndNamesNoValue(t *testing.T) {
	block := &spec.HTTPHook{URL: "https://{{name}}.example.com/{{ metadata.labels.env }}",
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
	if filled := got.Block.(*spec.HTTPHook); err != nil || filled.URL != "https://prod-1.example.com/prod" || filled.Headers["Authorization"] != "Bearer s3cr3t" || len(secrets) != 1 {
		t.Fatalf("%+v %v %v", filled, secrets, err)
	}
	if block.Headers["Authorization"] != "Bearer {{.secrets.hook-token.token}}" {
		t.Fatal("the declared hook was changed")
	}
	seedBody := spec.Hook{Name: "notify", Type: "http", Block: &spec.HTTPHook{URL: "https://chat.example.com", Body: `{"text": "for {{ .appset.name }} in {{.phase.name}}"}`}}
	if got, _, err := Template(seedBody, PhaseVars("guestbook", "argocd", "prod"), lookup); err != nil || got.Block.(*spec.HTTPHook).Body != `{"text": "for guestbook in prod"}` {
		t.Fatalf("seed 000's {{ .appset.name }}: %v %v", got.Block, err)
	}
	perPhase := spec.Hook{Name: "smoke-tests", Type: "command", Block: &spec.CommandHook{Command: []string{"pytest"}, Env: map[string]string{"TARGET_URL": "https://{{name}}.example.com"}}}
	if _, _, err := Template(perPhase, PhaseVars("guestbook", "argocd", "prod"), lookup); err == nil || !strings.Contains(err.Error(), "runs once per phase (fix: make it a check") {
		t.Fatalf("a cluster field in a once-per-phase hook: %v", err)
	}
	for _, bad := range []string{"{{nope}}", "{{.secrets.other.token}}", "{{.secrets.justname}}"} {
		block.URL = "https://x/" + bad
		if _, _, err := Template(h, vars, lookup); err == nil || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
