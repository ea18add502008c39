//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// hookedSpec is a 2-phase rollout (dev and staging, then prod) with a pre-hook, a
// per-cluster check and a post-hook in each phase, all calling hooksURL.
func hookedSpec(name, hooksURL, checkPolicy string) string {
	hooks := `        preHooks:
        - name: open-change
          type: http
          http:
            url: HOOKS/pre
        checks:
        - name: health
          type: http
          failurePolicy: POLICY
          http:
            url: HOOKS/check/{{name}}?t={{.secrets.SECRET.token}}
            method: GET
            headers:
              Authorization: Bearer {{.secrets.SECRET.token}}
        postHooks:
        - name: notify
          type: http
          http:
            url: HOOKS/post
`
	spec := twoPhaseSpec(name, hooks, hooks)
	return strings.NewReplacer("ROLLOUT", name, "HOOKS", hooksURL, "POLICY", checkPolicy, "SECRET", "token-"+name).Replace(spec)
}

// recorder is the hooks' server: it records every call and fails the check of one cluster.
type recorder struct {
	mu      sync.Mutex
	calls   []string // path and Idempotency-Key
	failFor string
	hold    chan struct{} // when set, /pre waits for it
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.mu.Lock()
	rec.calls = append(rec.calls, r.URL.Path+" "+r.Header.Get("Idempotency-Key"))
	hold := rec.hold
	rec.mu.Unlock()
	if r.URL.Path == "/pre" && hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	if r.URL.Path == "/check/"+rec.failFor { // echoes the credential, as careless servers do
		http.Error(w, "error rate 12% over the SLO for "+r.Header.Get("Authorization")+" "+r.URL.RawQuery, http.StatusInternalServerError)
	}
}

func (rec *recorder) seen(prefix string) []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []string
	for _, c := range rec.calls {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// TestHooksGateARollout: pre-hooks, a per-cluster check that fails for prod-2, post-hooks.
// With onFailure: stop the rollout stops at prod and names the cluster and the check; with
// failurePolicy: ignore on the check it completes.
func TestHooksGateARollout(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"fail", "ignore"} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			rec := &recorder{failFor: "prod-2"}
			srv := httptest.NewServer(rec)
			defer srv.Close()
			r := newPhased(t, "hooked-"+policy, "stop")
			secret := putHookSecret(ctx, t, r.name)
			if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": hookedSpec(r.name, srv.URL, policy),
				r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
				t.Fatal(err)
			}
			rev, _ := revisionOf(t, hookedSpec(r.name, srv.URL, policy))
			defer r.agent("agent-"+r.name, nil, "--hook-allow-private").Stop(5 * time.Second)
			newParent(ctx, t, r.name, r.name+"/app", 0)
			if policy == "ignore" {
				r.until("the rollout completes past the failing check", rev, rollout.StatusCompleted, everywhere("v1"))
				if n := len(rec.seen("/post")); n != 2 {
					t.Fatalf("post-hooks ran %d times, want once per phase", n)
				}
			} else {
				want := everywhere("v1")
				r.until("the rollout stops at prod", rev, rollout.StatusStopped, want)
				st, _ := r.state(ctx)
				if !strings.Contains(st.Rollout.Reason, "check health on "+r.name+"-prod-2 Failed") || !strings.Contains(st.Rollout.Reason, "error rate 12%") {
					t.Fatalf("the reason names the cluster and the check: %q", st.Rollout.Reason)
				}
				if n := len(rec.seen("/post")); n != 1 {
					t.Fatalf("post-hooks ran %d times, want only early's", n)
				}
			}
			pre := rec.seen("/pre")
			if len(pre) != 2 || pre[0] == pre[1] || !strings.Contains(pre[0], "/early/pre/open-change") {
				t.Fatalf("one pre-hook per phase, each with its own key: %v", pre)
			}
			if checks := rec.seen("/check/"); len(checks) != 6 {
				t.Fatalf("a check per admitted cluster: %v", checks)
			}
			r.neverShows(ctx, secret)
		})
	}
}

// putHookSecret makes the Secret the hooks' {{.secrets...}} references read, with a value
// that must never show anywhere.
func putHookSecret(ctx context.Context, t *testing.T, name string) string {
	value := "sekret-" + name + "-7f3a9c"
	_, err := env.Kube.CoreV1().Secrets(framework.ArgoNamespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "token-" + name},
		StringData: map[string]string{"token": value}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return value
}

// neverShows greps everything the agent wrote — its logs (procs, the agents the test
// started; default agent-<rollout>), the state, the Events — for value.
func (r *phased) neverShows(ctx context.Context, value string, procs ...string) {
	r.t.Helper()
	cm, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Get(ctx, contract.StateConfigMap(r.name), metav1.GetOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	st, _ := state.FromConfigMap(cm)
	doc, _ := json.Marshal(st)
	events, _ := env.Kube.CoreV1().Events(framework.ArgoNamespace).List(ctx, metav1.ListOptions{})
	evJSON, _ := json.Marshal(events)
	if len(procs) == 0 {
		procs = []string{"agent-" + r.name}
	}
	var logs []byte
	for _, p := range procs {
		b, err := os.ReadFile(filepath.Join(env.Dir, "logs", p+".log"))
		if err != nil {
			r.t.Fatalf("the agent log the test greps: %v", err)
		}
		logs = append(logs, b...)
	}
	for where, text := range map[string]string{"state": string(doc), "events": string(evJSON), "agent log": string(logs)} {
		if strings.Contains(text, value) {
			r.t.Errorf("the secret shows in the %s", where)
		}
	}
	if !strings.Contains(string(doc), "[redacted]") && strings.Contains(r.name, "fail") {
		r.t.Errorf("the failing check's message should show the redaction: %s", doc)
	}
}

// TestAHookRunsOnceAcrossCrashes: the agent is killed while a pre-hook is running, and
// again after its success was recorded; the hook's server sees the same Idempotency-Key on
// the re-run and no call after the recorded success.
func TestAHookRunsOnceAcrossCrashes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rec := &recorder{hold: make(chan struct{})}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	r := newPhased(t, "hookcrash", "stop")
	putHookSecret(ctx, t, r.name)
	if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": hookedSpec(r.name, srv.URL, "fail"),
		r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
		t.Fatal(err)
	}
	start := func(i int) *framework.Proc {
		return r.agent(fmt.Sprintf("agent-hookcrash-%d", i), nil, "--hook-allow-private", "--identity", "hookcrash")
	}
	first := start(0)
	newParent(ctx, t, r.name, r.name+"/app", 0)
	env.WaitFor(t, 2*time.Minute, "the pre-hook is called", func(context.Context) (bool, string) {
		return len(rec.seen("/pre")) == 1, fmt.Sprint(rec.seen("/pre"))
	})
	first.Kill() // while the hook runs
	close(rec.hold)
	second := start(1)
	ledger := func(ctx context.Context) (state.HookRun, bool) {
		st, err := r.state(ctx)
		if err != nil || st.Rollout == nil {
			return state.HookRun{}, false
		}
		run, ok := st.Rollout.Phases[0].Hooks["pre/open-change"]
		return run, ok
	}
	env.WaitFor(t, 2*time.Minute, "the re-run's success is recorded", func(ctx context.Context) (bool, string) {
		run, _ := ledger(ctx)
		return run.Status == state.HookSucceeded, string(run.Status)
	})
	second.Kill() // after the recorded success
	calls := rec.seen("/pre")
	if len(calls) != 2 || calls[0] != calls[1] {
		t.Fatalf("the re-run carries the same Idempotency-Key: %v", calls)
	}
	defer start(2).Stop(5 * time.Second)
	r.until("the rollout completes under a new agent", rev(t, r.name, srv.URL), rollout.StatusCompleted, everywhere("v1"))
	var early, prod int
	for _, c := range rec.seen("/pre") {
		switch {
		case strings.Contains(c, "/early/"):
			early++
		case strings.Contains(c, "/prod/"):
			prod++
		}
	}
	if early != 2 || prod != 1 {
		t.Fatalf("early's pre-hook ran %d times (want 2: killed, re-run), prod's %d (want 1): %v", early, prod, rec.seen("/pre"))
	}
}

func rev(t *testing.T, name, hooksURL string) string {
	id, _ := revisionOf(t, hookedSpec(name, hooksURL, "fail"))
	return id
}

// twoPhaseSpec is the phased spec of the hook tests: early (dev and staging) then prod
// (stop on failure), each phase's hooks block (its YAML lines at phase depth) put in;
// ROLLOUT and REPO are filled, in the blocks too.
func twoPhaseSpec(name, early, prod string) string {
	spec := `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: ROLLOUT
  namespace: argocd
spec:
  generators:
  - clusters:
      selector:
        matchLabels:
          argocd.argoproj.io/secret-type: cluster
      values:
        version: v1
    deploymentStrategy:
      type: phaseDeployment
      phases:
      - name: early
        targets:
        - matchExpressions:
          - {key: env, operator: In, values: [dev, staging]}
EARLY      - name: prod
        targets:
        - matchExpressions:
          - {key: env, operator: In, values: [prod]}
PROD        onFailure:
          action: stop
  template:
    metadata:
      name: 'ROLLOUT-{{name}}'
    spec:
      project: default
      source:
        repoURL: REPO
        targetRevision: HEAD
        path: 'ROLLOUT/{{values.version}}'
      destination:
        server: '{{server}}'
        namespace: '{{name}}'
      syncPolicy:
        automated: {}
`
	spec = strings.NewReplacer("EARLY", early, "PROD", prod).Replace(spec)
	return strings.NewReplacer("ROLLOUT", name, "REPO", env.Git.URL).Replace(spec)
}
