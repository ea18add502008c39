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

// rawSink keeps every request body a fake service received, by path.
type rawSink struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []string
	form bool // a Slack API: answer as Slack does, keep the form's text
}

func newRawSink(t *testing.T, slack bool) *rawSink {
	s := &rawSink{form: slack}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if s.form {
			v, _ := url.ParseQuery(string(b))
			b = []byte(v.Get("text"))
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"ok": true, "channel": "C1", "ts": "1.0"}`))
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
	}
}

// TestNotificationsEscapeHostileValues: issue 47's forged notices, through Argo CD's real
// argocd-notifications controller. For every trigger of the catalog, a parent whose
// annotations try to add a field, a link and a line sends a webhook body that is JSON with
// exactly the catalog's fields, each value as written, and a Slack message with every <, >
// and & of a value escaped and no line added; a child (labelled cmp-phase.io/cluster)
// carrying a Completed status sends nothing. Not parallel: it owns argocd-notifications-cm
// while it runs.
func TestNotificationsEscapeHostileValues(t *testing.T) {
	ctx := context.Background()
	hook, slack := newRawSink(t, false), newRawSink(t, true)
	data, _ := catalogData(t, hook.srv.URL)
	data["service.slack"] = "token: xoxb-test\napiURL: " + slack.srv.URL + "/api/\n"
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
		env.WaitFor(t, 2*time.Minute, "both notices of "+trigger, func(context.Context) (bool, string) {
			return len(hook.with(marker)) > 0 && len(slack.with(marker)) > 0, fmt.Sprintf("webhook %d, slack %d", len(hook.with(marker)), len(slack.with(marker)))
		})
		checkHostileWebhook(t, trigger, hook.with(marker)[0], hostileValues(marker))
		checkHostileSlack(t, trigger, slack.with(marker)[0])
	}
	time.Sleep(5 * time.Second)
	if got := append(hook.with("rev-child"), slack.with("rev-child")...); len(got) > 0 {
		t.Fatalf("a child carrying the parent's annotations sent %d notices: %q", len(got), got)
	}
}

// hostileApp creates an Application subscribed to trigger on the webhook and on Slack,
// then gives it the trigger's state with hostile values (a child: labelled as one).
func hostileApp(ctx context.Context, t *testing.T, name, trigger string, child bool) {
	t.Helper()
	app := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: framework.ArgoNamespace, Annotations: map[string]string{
		"notifications.argoproj.io/subscribe." + trigger + ".cmp-phase": "",
		"notifications.argoproj.io/subscribe." + trigger + ".slack":     "rollouts",
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
	fields := []string{"admitted", "event", "parent", "phase", "phaseSucceeded", "revision", "rollout", "rolloutID", "status", "waitingFor"}
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, fields) {
		t.Fatalf("%s: the body's fields are %v, want %v: %s", trigger, keys, fields, body)
	}
	if event := strings.TrimPrefix(trigger, "on-cmp-phase-"); got["event"] != event {
		t.Errorf("%s: event %q, want %q", trigger, got["event"], event)
	}
	for field, key := range map[string]string{"rollout": contract.ParentRollout, "phase": contract.ParentPhase, "phaseSucceeded": contract.ParentPhaseSucceeded,
		"admitted": contract.ParentAdmitted, "revision": contract.ParentRolloutRevision, "rolloutID": contract.ParentRolloutID} {
		if got[field] != want[key] {
			t.Errorf("%s: %s is %q, want %q as written", trigger, field, got[field], want[key])
		}
	}
}

// checkHostileSlack: no <, > or line break of a value reaches Slack's text, and the values
// are there, escaped.
func checkHostileSlack(t *testing.T, trigger, text string) {
	t.Helper()
	if text = strings.TrimSuffix(text, "\n"); strings.ContainsAny(text, "<>\n") || strings.Contains(text, "& ") || !strings.Contains(text, "&lt;https://evil.example|") {
		t.Errorf("%s: Slack's text pastes a value unescaped: %q", trigger, text)
	}
}
