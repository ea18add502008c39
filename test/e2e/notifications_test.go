//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// notice is one POST the catalog's webhook template sent.
type notice struct {
	Event, Rollout, Parent, Status, Phase, PhaseSucceeded, Admitted, WaitingFor, Revision, RolloutID, CheckFailed, Paused string
}

// sink is the webhook service's receiving end: every POST, in order.
type sink struct {
	url string
	mu  sync.Mutex
	got []notice
}

func newSink(t *testing.T) *sink {
	s := &sink{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var n notice
		if err := json.Unmarshal(b, &n); err != nil {
			t.Errorf("the webhook body is not JSON: %v: %s", err, b)
			return
		}
		s.mu.Lock()
		s.got = append(s.got, n)
		s.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// of are the notices about rollout rev, in the order they came.
func (s *sink) of(rev string) []notice {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []notice
	for _, n := range s.got {
		if n.Revision == rev {
			out = append(out, n)
		}
	}
	return out
}

func events(ns []notice) string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Event+"("+n.Phase+"/"+n.PhaseSucceeded+" "+n.RolloutID+")")
	}
	return strings.Join(out, " ")
}

// catalogData is manifests/notifications' argocd-notifications-cm with the webhook service
// pointed at url.
func catalogData(t *testing.T, url string) (map[string]string, []string) {
	b, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "manifests", "notifications", "argocd-notifications-cm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm struct{ Data map[string]string }
	if err := yaml.Unmarshal(b, &cm); err != nil {
		t.Fatal(err)
	}
	var triggers []string
	for k := range cm.Data {
		if name, ok := strings.CutPrefix(k, "trigger."); ok {
			triggers = append(triggers, name)
		}
	}
	cm.Data["service.webhook.cmp-phase"] = "url: " + url + "\nheaders:\n- name: Content-Type\n  value: application/json\n"
	return cm.Data, triggers
}

// TestNotificationsReachAWebhookOncePerEvent: Argo CD's real argocd-notifications
// controller, configured with the catalog and a webhook, follows a parent the agent
// annotates: a rollout through an approval gate sends started, awaiting-approval, the
// phases that succeeded and completed, each once (and nothing more after an agent
// restart); a rollout that stops sends stopped once.
func TestNotificationsReachAWebhookOncePerEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSink(t)
	data, triggers := catalogData(t, s.url)
	ctrl, err := env.StartNotifications(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	defer ctrl.Stop(5 * time.Second)
	r := newPhased(t, "notify", "stop")
	r.edit = func(spec string) string {
		if strings.Contains(spec, "version: v1\n") {
			return spec // the first deployment goes through unasked
		}
		return strings.Replace(spec, "      - name: staging\n", "      - name: staging\n        approval: {required: 1}\n", 1)
	}
	agent := r.agent("agent-notify", nil)
	r.firstDeployment(ctx, framework.Workload(r.name, "v2"))
	subscribe(ctx, t, r.name, triggers)

	r2 := r.commit("v2", map[string]string{"v3": framework.DegradedWorkload(r.name, "v3", "prod-2")})
	_ = env.Refresh(ctx, r.name, false)
	r.waitState("staging awaits approval", func(st *state.State) bool { return st.Rollout.Revision == r2 && asked(st) })
	waitNotices(t, s, r2, "awaiting-approval")
	r.cli("approve", r.name, "staging", "--reason", "looks good")
	r.until("v2 completes", r2, rollout.StatusCompleted, everywhere("v2"))
	waitNotices(t, s, r2, "completed")

	agent.Stop(5 * time.Second)
	agent = r.agent("agent-notify-again", nil)
	defer func() { agent.Stop(5 * time.Second) }()
	time.Sleep(15 * time.Second) // a restarted agent re-writes nothing new: no notice may follow
	got := s.of(r2)
	t.Logf("notices of v2: %s", events(got))
	// Argo CD's notifications controller records what it sent in an annotation it writes on
	// the Application itself, and delivers at least once: on one CI run in three, completed
	// and phase-succeeded of one rollout came twice. A repeat identical in every field
	// (rollout id, phase, status included) is counted once; a notice that differs in any —
	// another rollout id, as a restarted agent starting the rollout again would give — still
	// counts, and fails the test.
	once, seen := map[string]int{}, map[notice]bool{}
	for _, n := range got {
		if seen[n] {
			continue
		}
		seen[n] = true
		if n.Rollout != r.name || n.Parent != r.name || !strings.HasPrefix(n.RolloutID, r2+"@") {
			t.Fatalf("a notice names the wrong rollout: %+v", n)
		}
		key := n.Event
		if n.Event == "phase-succeeded" {
			key += "/" + n.PhaseSucceeded // once per phase
		}
		once[key]++
	}
	for key, c := range once {
		if c != 1 {
			t.Fatalf("%s sent %d times: %s", key, c, events(got))
		}
	}
	for _, e := range []string{"rollout-started", "awaiting-approval", "phase-succeeded/dev", "completed"} {
		if once[e] != 1 {
			t.Fatalf("%s not sent once: %s", e, events(got))
		}
	}
	if !(indexOf(got, "rollout-started") < indexOf(got, "awaiting-approval") && indexOf(got, "awaiting-approval") < indexOf(got, "completed")) {
		t.Fatalf("out of order: %s", events(got))
	}
	if n := got[indexOf(got, "awaiting-approval")]; n.Phase != "staging" || n.WaitingFor != "approval" {
		t.Fatalf("awaiting approval of %q (waiting for %q)", n.Phase, n.WaitingFor)
	}

	r3 := r.commit("v3", nil)
	_ = env.Refresh(ctx, r.name, false)
	r.waitState("v3 reaches staging's gate", func(st *state.State) bool { return st.Rollout.Revision == r3 && asked(st) })
	r.cli("approve", r.name, "staging", "--reason", "looks good")
	want := everywhere("v3")
	delete(want, "prod-2")
	r.until("v3 stops at prod", r3, rollout.StatusStopped, want)
	waitNotices(t, s, r3, "stopped")
	time.Sleep(5 * time.Second)
	stopped := 0
	for _, n := range s.of(r3) {
		if n.Event == "stopped" {
			stopped++
		}
	}
	if stopped != 1 {
		t.Fatalf("stopped sent %d times: %s", stopped, events(s.of(r3)))
	}
}

// TestNotificationsOfAPauseAndAFailedCheck: through Argo CD's real argocd-notifications
// controller to a webhook, a hooked rollout paused by a person while its first pre-hook
// runs sends paused once (naming when the pause began, waiting for a person); resumed, it
// stops at prod, where the per-cluster check fails for prod-2, and sends check-failed once,
// naming the check and the cluster, and stopped once. Not parallel: it owns
// argocd-notifications-cm while it runs.
func TestNotificationsOfAPauseAndAFailedCheck(t *testing.T) {
	ctx := context.Background()
	s := newSink(t)
	data, triggers := catalogData(t, s.url)
	ctrl, err := env.StartNotifications(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	defer ctrl.Stop(5 * time.Second)
	rec := &recorder{failFor: "prod-2", hold: make(chan struct{})}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	r := newPhased(t, "notify-check", "stop")
	putHookSecret(ctx, t, r.name)
	spec := hookedSpec(r.name, srv.URL, "fail")
	if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": spec, r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
		t.Fatal(err)
	}
	rev, _ := revisionOf(t, spec)
	defer r.agent("agent-"+r.name, nil, "--hook-allow-private").Stop(5 * time.Second)
	newParent(ctx, t, r.name, r.name+"/app", 0)
	subscribe(ctx, t, r.name, triggers)
	env.WaitFor(t, 2*time.Minute, "the first pre-hook is called", func(context.Context) (bool, string) {
		return len(rec.seen("/pre")) == 1, fmt.Sprint(rec.seen("/pre"))
	})
	r.cli("pause", r.name, "--reason", "a notice test")
	r.waitState("the pause holds the rollout", func(st *state.State) bool { return st.Rollout.Revision == rev && st.Paused != nil })
	waitNotices(t, s, rev, "paused")
	r.cli("resume", r.name, "--reason", "go on")
	close(rec.hold)
	r.until("the rollout stops at prod's failing check", rev, rollout.StatusStopped, everywhere("v1"))
	waitNotices(t, s, rev, "check-failed")
	waitNotices(t, s, rev, "stopped")
	time.Sleep(5 * time.Second)
	got := s.of(rev)
	t.Logf("notices: %s", events(got))
	count, seen := map[string]int{}, map[notice]bool{}
	for _, n := range got {
		if !seen[n] { // an exact repeat is Argo CD's at-least-once delivery
			seen[n] = true
			count[n.Event]++
		}
	}
	for _, e := range []string{"paused", "check-failed", "stopped"} {
		if count[e] != 1 {
			t.Fatalf("%s sent %d times: %s", e, count[e], events(got))
		}
	}
	if n := got[indexOf(got, "paused")]; n.Paused == "" || n.WaitingFor != "person" || n.Status != "Progressing" {
		t.Fatalf("the paused notice: %+v", n)
	}
	if n := got[indexOf(got, "check-failed")]; n.CheckFailed != "health on "+r.name+"-prod-2" || n.Phase != "prod" || n.Paused != "" {
		t.Fatalf("the check-failed notice: %+v", n)
	}
	if indexOf(got, "paused") > indexOf(got, "check-failed") {
		t.Fatalf("out of order: %s", events(got))
	}
}

// asked: staging's gate waits for its approval.
func asked(st *state.State) bool {
	g := st.Rollout.Phases[1].Approval
	return st.Rollout.Phase == 1 && g != nil && g.AskedAt != nil
}

// indexOf is the index of the first notice of event, -1 when none.
func indexOf(ns []notice, event string) int {
	for i, n := range ns {
		if n.Event == event {
			return i
		}
	}
	return -1
}

// subscribe subscribes the parent to every trigger on the webhook service.
func subscribe(ctx context.Context, t *testing.T, parent string, triggers []string) {
	t.Helper()
	ann := map[string]string{}
	for _, tr := range triggers {
		ann["notifications.argoproj.io/subscribe."+tr+".cmp-phase"] = ""
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": ann}})
	if _, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Patch(ctx, parent, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitNotices waits until the sink has a notice of event about rev.
func waitNotices(t *testing.T, s *sink, rev, event string) {
	t.Helper()
	env.WaitFor(t, 2*time.Minute, "a "+event+" notice", func(context.Context) (bool, string) {
		ns := s.of(rev)
		return indexOf(ns, event) >= 0, fmt.Sprint(events(ns))
	})
}
