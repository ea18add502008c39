//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// rawSink keeps every request body a fake service received.
type rawSink struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []string
	kind string // "": a webhook; slack: a Slack API (answers as Slack, keeps the form's text and attachments as JSON); teams: an Office 365 connector (answers "1")
}

func newRawSink(t *testing.T, kind string) *rawSink {
	s := &rawSink{kind: kind}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch s.kind {
		case "slack":
			v, _ := url.ParseQuery(string(b))
			b, _ = json.Marshal(map[string]string{"text": v.Get("text"), "attachments": v.Get("attachments")})
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"ok": true, "channel": "C1", "ts": "1.0"}`))
		case "teams":
			_, _ = w.Write([]byte("1"))
		}
		s.mu.Lock()
		s.got = append(s.got, string(b))
		s.mu.Unlock()
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// with are the bodies received that contain marker.
func (s *rawSink) with(marker string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, b := range s.got {
		if strings.Contains(b, marker) {
			out = append(out, b)
		}
	}
	return out
}

// hostileState is, per trigger of the catalog, the annotations that fire it; every one
// also gets hostileValues.
var hostileState = map[string]map[string]string{
	"on-cmp-phase-rollout-started":   {contract.ParentStatus: "Progressing"},
	"on-cmp-phase-phase-succeeded":   {contract.ParentStatus: "Progressing"},
	"on-cmp-phase-awaiting-approval": {contract.ParentStatus: "Progressing", contract.ParentWaitingFor: "approval"},
	"on-cmp-phase-held-by-window":    {contract.ParentStatus: "Progressing", contract.ParentWaitingFor: "window"},
	"on-cmp-phase-paused":            {contract.ParentStatus: "Progressing", contract.ParentWaitingFor: "person"},
	"on-cmp-phase-check-failed":      {contract.ParentStatus: "Progressing", contract.ParentWaitingFor: "sync"},
	"on-cmp-phase-stopped":           {contract.ParentStatus: "Stopped"},
	"on-cmp-phase-rolled-back":       {contract.ParentStatus: "RolledBack"},
	"on-cmp-phase-completed":         {contract.ParentStatus: "Completed"},
}

// hostileValues try to add a JSON field, a Slack link and a line to every notice; the
// revision is the test's marker, told apart per trigger.
func hostileValues(marker string) map[string]string {
	return map[string]string{
		contract.ParentRollout:         `web", "status": "Completed", "link": "https://evil.example/`,
		contract.ParentPhase:           "prod\nRollout web COMPLETED <https://evil.example|approve here>",
		contract.ParentPhaseSucceeded:  `dev"}, {"event": "completed`,
		contract.ParentAdmitted:        "<https://evil.example|3/3> & <!channel>",
		contract.ParentRolloutRevision: marker + `\"}`,
		contract.ParentRolloutID:       marker + `@2026-01-01T00:00:00Z"}`,
		contract.ParentPaused:          `2026-01-01T00:00:00Z", "value": "<!here>`,
		contract.ParentCheckFailed:     "health on <https://evil.example|prod-1>\n\"}]",
	}
}

// TestNotificationsEscapeHostileValues: issue 47's forged notices, through Argo CD's real
// argocd-notifications controller. For every trigger of the catalog, a parent whose
// annotations try to add a field, a link and a line sends a webhook body that is JSON with
// exactly the catalog's fields, each value as written, and a Slack message and attachment
// and Teams cards (teams and teams-workflows) with every <, > and & of a value escaped and
// no line, fact or field added; a child (labelled cmp-phase.io/cluster)
// carrying a Completed status sends nothing. Not parallel: it owns argocd-notifications-cm
// while it runs.
func TestNotificationsEscapeHostileValues(t *testing.T) {
	ctx := context.Background()
	hook, slack, teams, workflows := newRawSink(t, ""), newRawSink(t, "slack"), newRawSink(t, "teams"), newRawSink(t, "")
	data, _ := catalogData(t, hook.srv.URL)
	data["service.slack"] = "token: xoxb-test\napiURL: " + slack.srv.URL + "/api/\n"
	data["service.teams"] = "recipientUrls:\n  rollouts: " + teams.srv.URL + "/webhook\n"
	// teams-workflows takes only a Power Automate URL: a path with /powerautomate/ on 127.0.0.1 is one
	data["service.teams-workflows"] = "recipientUrls:\n  rollouts: " + workflows.srv.URL + "/powerautomate/workflows\n"
	ctrl, err := env.StartNotifications(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	defer ctrl.Stop(5 * time.Second)
	for trigger := range hostileState {
		hostileApp(ctx, t, "hostile-"+strings.TrimPrefix(trigger, "on-cmp-phase-"), trigger, false)
	}
	hostileApp(ctx, t, "hostile-child", "on-cmp-phase-completed", true)
	for trigger := range hostileState {
		marker := "rev-" + strings.TrimPrefix(trigger, "on-cmp-phase-")
		env.WaitFor(t, 2*time.Minute, "the four notices of "+trigger, func(context.Context) (bool, string) {
			n := []int{len(hook.with(marker)), len(slack.with(marker)), len(teams.with(marker)), len(workflows.with(marker))}
			return !slices.Contains(n, 0), fmt.Sprintf("webhook, slack, teams, teams-workflows: %v", n)
		})
		checkHostileWebhook(t, trigger, hook.with(marker)[0], hostileValues(marker))
		checkHostileSlack(t, trigger, slack.with(marker)[0])
		checkHostileCard(t, trigger, "teams", teams.with(marker)[0])
		checkHostileCard(t, trigger, "teams-workflows", workflows.with(marker)[0])
	}
	time.Sleep(5 * time.Second)
	if got := slices.Concat(hook.with("rev-child"), slack.with("rev-child"), teams.with("rev-child"), workflows.with("rev-child")); len(got) > 0 {
		t.Fatalf("a child carrying the parent's annotations sent %d notices: %q", len(got), got)
	}
}

// hostileApp creates an Application subscribed to trigger on the webhook and on Slack,
// then gives it the trigger's state with hostile values (a child: labelled as one).
func hostileApp(ctx context.Context, t *testing.T, name, trigger string, child bool) {
	t.Helper()
	app := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: framework.ArgoNamespace, Annotations: map[string]string{
		"notifications.argoproj.io/subscribe." + trigger + ".cmp-phase":       "",
		"notifications.argoproj.io/subscribe." + trigger + ".slack":           "rollouts",
		"notifications.argoproj.io/subscribe." + trigger + ".teams":           "rollouts",
		"notifications.argoproj.io/subscribe." + trigger + ".teams-workflows": "rollouts",
	}}, Spec: v1alpha1.ApplicationSpec{Project: "default",
		Source:      &v1alpha1.ApplicationSource{RepoURL: env.Git.URL, TargetRevision: "HEAD", Path: "nothing-" + name},
		Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "default"}}}
	if child {
		app.Labels = map[string]string{contract.LabelCluster: "prod-1", contract.LabelRollout: "web"}
	}
	apps := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace)
	if _, err := apps.Create(ctx, app, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = apps.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	ann := hostileValues("rev-" + strings.TrimPrefix(name, "hostile-"))
	maps.Copy(ann, hostileState[trigger])
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": ann}})
	if _, err := apps.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// checkHostileWebhook: the body is one JSON object of the catalog's fields, each value the
// annotation as written.
func checkHostileWebhook(t *testing.T, trigger, body string, want map[string]string) {
	t.Helper()
	var got map[string]string
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("%s: the webhook body is no JSON object of strings: %v: %s", trigger, err, body)
	}
	fields := []string{"admitted", "checkFailed", "event", "parent", "paused", "phase", "phaseSucceeded", "revision", "rollout", "rolloutID", "status", "waitingFor"}
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, fields) {
		t.Fatalf("%s: the body's fields are %v, want %v: %s", trigger, keys, fields, body)
	}
	if event := strings.TrimPrefix(trigger, "on-cmp-phase-"); got["event"] != event {
		t.Errorf("%s: event %q, want %q", trigger, got["event"], event)
	}
	for field, key := range map[string]string{"rollout": contract.ParentRollout, "phase": contract.ParentPhase, "phaseSucceeded": contract.ParentPhaseSucceeded,
		"admitted": contract.ParentAdmitted, "revision": contract.ParentRolloutRevision, "rolloutID": contract.ParentRolloutID,
		"checkFailed": contract.ParentCheckFailed, "paused": contract.ParentPaused} {
		if got[field] != want[key] {
			t.Errorf("%s: %s is %q, want %q as written", trigger, field, got[field], want[key])
		}
	}
}

// checkHostileSlack: no <, > or line break of a value reaches Slack's text or its one
// attachment's title and fields, and the values are there, escaped.
func checkHostileSlack(t *testing.T, trigger, form string) {
	t.Helper()
	var got struct{ Text, Attachments string }
	if err := json.Unmarshal([]byte(form), &got); err != nil {
		t.Fatal(err)
	}
	if text := strings.TrimSuffix(got.Text, "\n"); strings.ContainsAny(text, "<>\n") || strings.Contains(text, "& ") || !strings.Contains(text, "&lt;https://evil.example|") {
		t.Errorf("%s: Slack's text pastes a value unescaped: %q", trigger, text)
	}
	var attachments []map[string]any
	if err := json.Unmarshal([]byte(got.Attachments), &attachments); err != nil || len(attachments) != 1 {
		t.Fatalf("%s: Slack's attachments are no one attachment (%v): %s", trigger, err, got.Attachments)
	}
	fields, _ := attachments[0]["fields"].([]any)
	checkHostileStrings(t, trigger+" Slack attachment", attachments[0], len(fields))
}

// checkHostileCard: the Teams card (a MessageCard, or teams-workflows' Adaptive Card) is
// JSON whose every string is free of a value's <, > and line breaks, with the values there,
// escaped, and as many facts as the template has.
func checkHostileCard(t *testing.T, trigger, service, body string) {
	t.Helper()
	var card map[string]any
	if err := json.Unmarshal([]byte(body), &card); err != nil {
		t.Fatalf("%s: the %s card is no JSON object (%v): %s", trigger, service, err, body)
	}
	facts := strings.Count(body, `"name":`)
	if service == "teams-workflows" {
		facts = strings.Count(body, `"title":`)
	}
	checkHostileStrings(t, trigger+" "+service+" card", card, facts)
}

// checkHostileStrings walks v: no string holds a raw <, > or inner line break, one holds
// the phase escaped, and facts (the card's facts or fields) are 3 to 5, as the templates
// have.
func checkHostileStrings(t *testing.T, what string, v any, facts int) {
	t.Helper()
	escaped := false
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case string:
			if s := strings.TrimSuffix(v, "\n"); strings.ContainsAny(s, "<>\n") || strings.Contains(s, "& ") {
				t.Errorf("%s pastes a value unescaped: %q", what, s)
			}
			escaped = escaped || strings.Contains(v, "&lt;https://evil.example|")
		}
	}
	walk(v)
	if !escaped || facts < 3 || facts > 5 {
		t.Errorf("%s: the escaped phase shown %v, %d facts (want 3 to 5)", what, escaped, facts)
	}
}
