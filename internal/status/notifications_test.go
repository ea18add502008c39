package status

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/Masterminds/sprig/v3"
	"github.com/expr-lang/expr"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// catalog is manifests/notifications' argocd-notifications-cm: trigger name → its one
// condition, and template name → its texts.
func catalog(t *testing.T) (map[string]map[string]string, map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "manifests", "notifications", "argocd-notifications-cm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm struct{ Data map[string]string }
	if err := yaml.Unmarshal(b, &cm); err != nil {
		t.Fatal(err)
	}
	triggers, templates := map[string]map[string]string{}, map[string]string{}
	for k, v := range cm.Data {
		switch {
		case strings.HasPrefix(k, "trigger."):
			var conds []map[string]any
			if err := yaml.Unmarshal([]byte(v), &conds); err != nil || len(conds) != 1 {
				t.Fatalf("%s: %v", k, err)
			}
			triggers[strings.TrimPrefix(k, "trigger.")] = map[string]string{"when": conds[0]["when"].(string), "oncePer": conds[0]["oncePer"].(string)}
		case strings.HasPrefix(k, "template."):
			templates[strings.TrimPrefix(k, "template.")] = v
		}
	}
	return triggers, templates
}

// app is the parent as argocd-notifications sees it (unstructured), carrying st's state.
func app(st *state.State) map[string]any {
	ann := map[string]any{}
	for k, v := range Parent("web", st) {
		if v != "" {
			ann[k] = v
		}
	}
	return map[string]any{"metadata": map[string]any{"name": "web-parent", "annotations": ann}}
}

// notificationFuncs are the functions argocd-notifications gives a template: sprig's, less
// env and expandenv (notifications-engine's pkg/templates).
func notificationFuncs() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	return f
}

func eval(t *testing.T, code string, env map[string]any) any {
	t.Helper()
	prog, err := expr.Compile(code, expr.Env(env))
	if err != nil {
		t.Fatalf("%s: %v", code, err)
	}
	out, err := expr.Run(prog, env)
	if err != nil {
		t.Fatalf("%s: %v", code, err)
	}
	return out
}

// TestTheNotificationCatalogFiresOnTheParentsAnnotations: each state of a rollout makes
// exactly its triggers fire (with argocd-notifications' expression language over the parent
// the agent annotates), their oncePer names the rollout, and every template renders.
func TestTheNotificationCatalogFiresOnTheParentsAnnotations(t *testing.T) {
	triggers, templates := catalog(t)
	if len(triggers) != 9 || len(templates) != 9 {
		t.Fatalf("nine triggers and templates, got %d and %d", len(triggers), len(templates))
	}
	cases := map[string]struct {
		change func(*state.State)
		fire   []string
	}{
		"admitting the second phase": {func(*state.State) {}, []string{"on-cmp-phase-phase-succeeded", "on-cmp-phase-rollout-started"}},
		"awaiting approval": {func(s *state.State) { s.Rollout.Phases[1].Approval = &state.ApprovalGate{Required: 1} },
			[]string{"on-cmp-phase-awaiting-approval", "on-cmp-phase-phase-succeeded", "on-cmp-phase-rollout-started"}},
		"held by a window": {func(s *state.State) { s.Rollout.Window = &state.WindowHold{Phase: "prod", Windows: []string{"freeze"}} },
			[]string{"on-cmp-phase-held-by-window", "on-cmp-phase-phase-succeeded", "on-cmp-phase-rollout-started"}},
		"paused": {func(s *state.State) { s.Paused = &state.Pause{Reason: "incident", Since: time.Now()} },
			[]string{"on-cmp-phase-paused", "on-cmp-phase-phase-succeeded", "on-cmp-phase-rollout-started"}},
		"paused, then stopped": {func(s *state.State) {
			s.Paused, s.Rollout.Status = &state.Pause{Reason: "incident"}, state.RolloutStopped
		},
			[]string{"on-cmp-phase-phase-succeeded", "on-cmp-phase-stopped"}},
		"a check failed, the rollout stopped": {func(s *state.State) {
			s.Rollout.Status = state.RolloutStopped
			s.Rollout.Phases[1].Hooks = map[string]state.HookRun{"check/health/p1": {Kind: "check", Name: "health", Cluster: "p1", Status: state.HookFailed}}
		}, []string{"on-cmp-phase-check-failed", "on-cmp-phase-phase-succeeded", "on-cmp-phase-stopped"}},
		"a check failed, ignored": {func(s *state.State) {
			s.Rollout.Phases[1].Hooks = map[string]state.HookRun{"check/health": {Kind: "check", Name: "health", Status: state.HookErrored}}
		}, []string{"on-cmp-phase-check-failed", "on-cmp-phase-phase-succeeded", "on-cmp-phase-rollout-started"}},
		"stopped":     {func(s *state.State) { s.Rollout.Status = state.RolloutStopped }, []string{"on-cmp-phase-phase-succeeded", "on-cmp-phase-stopped"}},
		"rolled back": {func(s *state.State) { s.Rollout.Status = state.RolloutRolledBack }, []string{"on-cmp-phase-phase-succeeded", "on-cmp-phase-rolled-back"}},
		"completed":   {func(s *state.State) { s.Rollout.Status = state.RolloutCompleted }, []string{"on-cmp-phase-completed", "on-cmp-phase-phase-succeeded"}},
		"idle":        {func(s *state.State) { s.Rollout = nil }, nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			st := rolling()
			c.change(st)
			env := map[string]any{"app": app(st)}
			var fired []string
			for trig, cond := range triggers {
				if eval(t, cond["when"], env) == true {
					fired = append(fired, trig)
					if once := eval(t, cond["oncePer"], env).(string); !strings.HasPrefix(once, "r2@") {
						t.Fatalf("%s: oncePer %q does not name the rollout", trig, once)
					}
				}
			}
			slices.Sort(fired)
			if !slices.Equal(fired, c.fire) {
				t.Fatalf("fired %v, want %v", fired, c.fire)
			}
		})
	}
	for name, text := range templates {
		completed := rolling()
		completed.Rollout.Status = state.RolloutCompleted // says nothing of what it waits for
		for _, st := range []*state.State{rolling(), completed} {
			for _, part := range templateParts(t, name, text) {
				var out strings.Builder
				if err := template.Must(template.New(name).Funcs(notificationFuncs()).Parse(part)).Execute(&out, map[string]any{"app": app(st)}); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if strings.Contains(out.String(), "<no value>") || !strings.Contains(out.String(), "web") {
					t.Fatalf("%s renders %q", name, out.String())
				}
			}
		}
	}
}

// parts are the texts of a template: its message, email subject, webhook body, Slack
// attachment and Teams cards (teams, teams-workflows: title, summary, facts).
type parts struct {
	Message string
	Email   struct{ Subject string }
	Webhook map[string]struct{ Body string }
	Slack   struct{ Attachments string }
	Teams   teamsCard
	// TeamsWorkflows is the teams-workflows service's card
	TeamsWorkflows teamsCard `json:"teams-workflows"`
}

type teamsCard struct{ Title, Summary, ThemeColor, Facts string }

// templateParts are every text of a template that notifications renders, each one there.
func templateParts(t *testing.T, name, text string) []string {
	t.Helper()
	var p parts
	if err := yaml.Unmarshal([]byte(text), &p); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out := []string{p.Message, p.Email.Subject, p.Webhook["cmp-phase"].Body, p.Slack.Attachments,
		p.Teams.Title, p.Teams.Summary, p.Teams.Facts, p.TeamsWorkflows.Title, p.TeamsWorkflows.Summary, p.TeamsWorkflows.Facts}
	for i, part := range out {
		if part == "" {
			t.Fatalf("%s: part %d of %d is missing", name, i, len(out))
		}
	}
	return out
}

// TestTheHelmValuesCarryTheCatalog: manifests/helm/notifications-values.yaml gives the
// argo-cd chart exactly the catalog's triggers and templates.
func TestTheHelmValuesCarryTheCatalog(t *testing.T) {
	read := func(path string, into any) {
		b, err := os.ReadFile(filepath.Join(append([]string{"..", ".."}, strings.Split(path, "/")...)...))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, into); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	var cm struct{ Data map[string]string }
	var values struct {
		Notifications struct{ Templates, Triggers map[string]string }
	}
	read("manifests/notifications/argocd-notifications-cm.yaml", &cm)
	read("manifests/helm/notifications-values.yaml", &values)
	got := map[string]string{}
	for _, m := range []map[string]string{values.Notifications.Templates, values.Notifications.Triggers} {
		for k, v := range m {
			got[k] = v
		}
	}
	if len(got) != len(cm.Data) {
		t.Fatalf("the Helm values carry %d entries, the catalog %d (fix: regenerate notifications-values.yaml from the catalog)", len(got), len(cm.Data))
	}
	for k, v := range cm.Data {
		if got[k] != v {
			t.Errorf("%s differs between the catalog and the Helm values (fix: copy the catalog's text)", k)
		}
	}
}
