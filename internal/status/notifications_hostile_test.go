package status

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"
)

// hostileAnnotations are values a spec author could once put on a child (the parent's own
// keys), or an editor of the parent: each tries to add a JSON field, a Slack link, a line.
var hostileAnnotations = map[string]any{
	"cmp-phase.io/rollout":          `web", "status": "Completed", "link": "https://evil.example/`,
	"cmp-phase.io/status":           "Stopped",
	"cmp-phase.io/phase":            "prod\nRollout web COMPLETED <https://evil.example|approve here>",
	"cmp-phase.io/phase-succeeded":  `dev\u2028"}`,
	"cmp-phase.io/admitted":         "<https://evil.example|3/3> & <!channel>",
	"cmp-phase.io/waiting-for":      "approval",
	"cmp-phase.io/rollout-revision": `r2\"}, {"x": "`,
	"cmp-phase.io/rollout-id":       `r2@2026-01-01T00:00:00Z"}`,
	"cmp-phase.io/check-failed":     "health on <https://evil.example|prod-1>\n\"}]",
	"cmp-phase.io/paused":           `2026-01-01T00:00:00Z", "value": "<!here>`,
}

// bodyKeys are the fields of every webhook body.
var bodyKeys = []string{"admitted", "checkFailed", "event", "parent", "paused", "phase", "phaseSucceeded", "revision", "rollout", "rolloutID", "status", "waitingFor"}

// TestEveryNotificationTemplateEscapesWhatItPastes: issue 47's forged notices. Each
// template, rendered with argocd-notifications' functions over a parent whose annotations
// try to add a field, a link or a line, gives a webhook body that is JSON with exactly its
// fields, each value the annotation as written, and a message and subject with no raw <, >
// or line break of a value.
func TestEveryNotificationTemplateEscapesWhatItPastes(t *testing.T) {
	_, templates := catalog(t)
	parent := map[string]any{"metadata": map[string]any{"name": "web-parent", "annotations": hostileAnnotations}}
	for name, text := range templates {
		t.Run(name, func(t *testing.T) {
			var tmpl parts
			if err := yaml.Unmarshal([]byte(text), &tmpl); err != nil {
				t.Fatal(err)
			}
			render := func(part string) string {
				var out strings.Builder
				if err := template.Must(template.New(name).Funcs(notificationFuncs()).Parse(part)).Execute(&out, map[string]any{"app": parent}); err != nil {
					t.Fatal(err)
				}
				return out.String()
			}
			var body map[string]string
			if err := json.Unmarshal([]byte(render(tmpl.Webhook["cmp-phase"].Body)), &body); err != nil {
				t.Fatalf("the webhook body is no JSON object of strings: %v", err)
			}
			if got := slices.Sorted(maps.Keys(body)); !slices.Equal(got, bodyKeys) {
				t.Fatalf("the body's fields are %v, want %v", got, bodyKeys)
			}
			for field, key := range map[string]string{"rollout": "cmp-phase.io/rollout", "phase": "cmp-phase.io/phase", "admitted": "cmp-phase.io/admitted",
				"revision": "cmp-phase.io/rollout-revision", "rolloutID": "cmp-phase.io/rollout-id", "phaseSucceeded": "cmp-phase.io/phase-succeeded",
				"checkFailed": "cmp-phase.io/check-failed", "paused": "cmp-phase.io/paused"} {
				if body[field] != hostileAnnotations[key] {
					t.Errorf("%s is %q, want the annotation as written %q", field, body[field], hostileAnnotations[key])
				}
			}
			for what, part := range map[string]string{"message": tmpl.Message, "subject": tmpl.Email.Subject, "teams title": tmpl.Teams.Title,
				"teams summary": tmpl.Teams.Summary, "teams-workflows title": tmpl.TeamsWorkflows.Title} {
				out := strings.TrimSuffix(render(part), "\n")
				if strings.ContainsAny(out, "<>\n") || strings.Contains(out, "& ") {
					t.Errorf("the %s pastes a value unescaped: %q", what, out)
				}
				if what == "message" && !strings.Contains(out, "&lt;https://evil.example|") {
					t.Errorf("the %s lost a value instead of escaping it: %q", what, out)
				}
			}
			var attachments []struct {
				Title  string
				Fields []struct{ Title, Value string }
			}
			if err := json.Unmarshal([]byte(render(tmpl.Slack.Attachments)), &attachments); err != nil || len(attachments) != 1 {
				t.Fatalf("the Slack attachments are no one JSON attachment: %v", err)
			}
			checkFacts(t, "slack", attachments[0].Title, attachments[0].Fields)
			for what, card := range map[string]teamsCard{"teams": tmpl.Teams, "teams-workflows": tmpl.TeamsWorkflows} {
				var facts []struct{ Name, Value string }
				if err := json.Unmarshal([]byte(render(card.Facts)), &facts); err != nil {
					t.Fatalf("the %s facts are no JSON array: %v", what, err)
				}
				var named []struct{ Title, Value string }
				for _, f := range facts {
					named = append(named, struct{ Title, Value string }{f.Name, f.Value})
				}
				checkFacts(t, what, "", named)
			}
		})
	}
}

// checkFacts: a card's title and facts hold each value escaped (no raw <, > or line break),
// the rollout's fact first, the phase's second, and no fact more than the template's.
func checkFacts(t *testing.T, what, title string, facts []struct{ Title, Value string }) {
	t.Helper()
	if len(facts) < 3 || len(facts) > 5 || facts[0].Title != "Rollout" || facts[1].Title != "Phase" {
		t.Fatalf("the %s facts are %+v", what, facts)
	}
	if !strings.Contains(facts[1].Value, "&lt;https://evil.example|") {
		t.Errorf("the %s phase lost its value instead of escaping it: %q", what, facts[1].Value)
	}
	for _, f := range append(facts, struct{ Title, Value string }{"title", title}) {
		if strings.ContainsAny(f.Value, "<>\n") || strings.Contains(f.Value, "& ") {
			t.Errorf("the %s %s pastes a value unescaped: %q", what, f.Title, f.Value)
		}
	}
}
