package extension

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argofake "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned/fake"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/status"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

const (
	ns     = "argocd"
	secret = "s3cret-s3cret-s3cret-s3cret"
	parent = "guestbook-parent"
)

var at = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

// renderedPlan is the plan ConfigMap the renderer emits for render's spec-v2 testdata
// (rollout guestbook, parent guestbook-parent, phases dev, staging, prod).
func renderedPlan(t *testing.T) *corev1.ConfigMap {
	t.Helper()
	b, err := os.ReadFile("../render/testdata/spec-v2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Parse("spec-v2.yaml", b, targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := inputs.InventoryFromFile("../render/testdata/inventory.json")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := render.New(1).Render(render.Input{Spec: sp, Inventory: inv, Env: render.Env{StateNamespace: ns, AppName: parent}})
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := json.Unmarshal(docs[0], &cm); err != nil || cm.Kind != "ConfigMap" {
		t.Fatalf("the first document is the plan: %v %.100s", err, docs[0])
	}
	cm.Namespace = ns
	return &cm
}

// stateCM is guestbook's state: staging waits for 2 approvals from sre.
func stateCM(t *testing.T) *corev1.ConfigMap {
	t.Helper()
	asked := at
	st := &state.State{Schema: state.Schema, Generation: 7, Deployed: "aaaa", Revisions: map[string]json.RawMessage{"aaaa": json.RawMessage(`{}`), "bbbb": json.RawMessage(`{}`)}, Rollout: &state.Rollout{
		Revision: "bbbb", Status: state.RolloutProgressing, Phase: 1, StartedAt: at,
		Phases: []state.PhaseState{
			{Name: "dev", Status: state.PhaseSucceeded, Members: []string{"guestbook-dev-1"}, Admitted: []string{"guestbook-dev-1"},
				Clusters: map[string]state.ClusterState{"guestbook-dev-1": {Status: state.ClusterDone}}},
			{Name: "staging", Status: state.PhaseAdmitting, Members: []string{"guestbook-staging-1"}, Admitted: []string{"guestbook-staging-1"},
				Approval: &state.ApprovalGate{Required: 2, Groups: []string{"sre"}, AskedAt: &asked}},
			{Name: "prod", Status: state.PhasePending, Members: []string{"guestbook-prod-1", "guestbook-prod-2"}},
		}}}
	st.Rollout.Record(at, "PhaseProgressing", "staging admitted")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.StateConfigMap("guestbook"), Namespace: ns, ResourceVersion: "1",
		Labels: map[string]string{contract.LabelState: contract.MarkerValue}}}
	if err := state.ToConfigMap(st, cm); err != nil {
		t.Fatal(err)
	}
	return cm
}

func parentApp(name, project, rollout string) *v1alpha1.Application {
	a := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: v1alpha1.ApplicationSpec{Project: project}}
	if rollout != "" {
		a.Annotations = map[string]string{contract.ParentRollout: rollout}
	}
	return a
}

type stack struct {
	h    http.Handler
	kube *fake.Clientset
}

func newStack(t *testing.T, actions bool, objs ...runtime.Object) stack {
	t.Helper()
	return newStackWith(t, Options{Actions: actions, TrustGroups: true}, objs...)
}

// newStackWith is a handler with o (its Namespace, Secret and clients filled in).
func newStackWith(t *testing.T, o Options, objs ...runtime.Object) stack {
	t.Helper()
	kube := fake.NewClientset(renderedPlan(t), stateCM(t))
	for _, o := range objs {
		if err := kube.Tracker().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	argo := argofake.NewSimpleClientset(parentApp(parent, "default", "guestbook"), parentApp("not-a-parent", "default", ""),
		// claims guestbook, but no plan of guestbook names it
		parentApp("impostor", "default", "guestbook"))
	o.Log, o.Namespace, o.Secret, o.ConfigMaps, o.Applications = slog.New(slog.NewTextHandler(t.Output(), nil)), ns, []byte(secret), kube.CoreV1(), argo.ArgoprojV1alpha1()
	h, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return stack{h: h, kube: kube}
}

// call is a request as argocd-server forwards it: the secret, the parent's headers and the
// user's, unless a header is given "" (then left out).
func call(h http.Handler, method, path, body string, headers map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	base := map[string]string{DefaultSecretHeader: secret, HeaderApplication: ns + ":" + parent, HeaderProject: "default",
		HeaderUsername: "alice", HeaderGroups: "sre,system:authenticated"}
	for k, v := range headers {
		base[k] = v
	}
	for k, v := range base {
		if v != "" {
			r.Header.Set(k, v)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestStatusIsTheCLIsDocument: the body is the document cmp-phase status -o json prints
// for the same state, and says the actions are off.
func TestStatusIsTheCLIsDocument(t *testing.T) {
	s := newStack(t, false)
	w := call(s.h, "GET", "/api/v1/status", "", nil)
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	st, err := state.FromConfigMap(stateCM(t))
	if err != nil {
		t.Fatal(err)
	}
	want := status.Of("guestbook", st)
	status.AddShards(&want, status.ShardsOf([]corev1.ConfigMap{*renderedPlan(t)}))
	wantJSON, _ := json.MarshalIndent(want, "", "  ")
	if got := strings.TrimSpace(w.Body.String()); got != string(wantJSON) {
		t.Fatalf("got\n%s\nwant\n%s", got, wantJSON)
	}
	if w.Header().Get(HeaderActions) != "off" || w.Header().Get(HeaderNamespace) != ns || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("headers %v", w.Header())
	}
}

// TestRefusals: every request the endpoint must not serve gets its code and no data.
func TestRefusals(t *testing.T) {
	cases := map[string]struct {
		actions bool
		method  string
		path    string
		body    string
		headers map[string]string
		code    int
	}{
		"no secret":                   {false, "GET", "/api/v1/status", "", map[string]string{DefaultSecretHeader: ""}, 401},
		"a wrong secret":              {false, "GET", "/api/v1/status", "", map[string]string{DefaultSecretHeader: secret + "x"}, 401},
		"a secret's prefix":           {false, "GET", "/api/v1/status", "", map[string]string{DefaultSecretHeader: secret[:8]}, 401},
		"no application header":       {false, "GET", "/api/v1/status", "", map[string]string{HeaderApplication: ""}, 400},
		"a name without namespace":    {false, "GET", "/api/v1/status", "", map[string]string{HeaderApplication: parent}, 400},
		"no project header":           {false, "GET", "/api/v1/status", "", map[string]string{HeaderProject: ""}, 400},
		"another namespace":           {false, "GET", "/api/v1/status", "", map[string]string{HeaderApplication: "team-a:" + parent}, 404},
		"an application not there":    {false, "GET", "/api/v1/status", "", map[string]string{HeaderApplication: ns + ":nothing"}, 404},
		"an app that is no parent":    {false, "GET", "/api/v1/status", "", map[string]string{HeaderApplication: ns + ":not-a-parent"}, 404},
		"an annotation, no plan":      {false, "GET", "/api/v1/status", "", map[string]string{HeaderApplication: ns + ":impostor"}, 404},
		"another project":             {false, "GET", "/api/v1/status", "", map[string]string{HeaderProject: "team-a"}, 404},
		"an unknown path":             {false, "GET", "/api/v1/state", "", nil, 404},
		"actions off: approve":        {false, "POST", "/api/v1/actions/approve", `{"phase":"staging","reason":"ok"}`, nil, 404},
		"actions off: pause":          {false, "POST", "/api/v1/actions/pause", `{"reason":"ok"}`, nil, 404},
		"actions off: write status":   {false, "POST", "/api/v1/status", `{}`, nil, 405},
		"actions on, no secret":       {true, "POST", "/api/v1/actions/approve", `{"phase":"staging","reason":"ok"}`, map[string]string{DefaultSecretHeader: ""}, 401},
		"an unknown action":           {true, "POST", "/api/v1/actions/rollback", `{"reason":"ok"}`, nil, 404},
		"an action by nobody":         {true, "POST", "/api/v1/actions/approve", `{"phase":"staging","reason":"ok"}`, map[string]string{HeaderUsername: ""}, 403},
		"an action without reason":    {true, "POST", "/api/v1/actions/approve", `{"phase":"staging"}`, nil, 400},
		"an approval of no phase":     {true, "POST", "/api/v1/actions/approve", `{"reason":"ok"}`, nil, 400},
		"an unknown field":            {true, "POST", "/api/v1/actions/approve", `{"phase":"staging","reason":"ok","by":"bob"}`, nil, 400},
		"a body too large":            {true, "POST", "/api/v1/actions/approve", `{"phase":"staging","reason":"` + strings.Repeat("x", MaxBody) + `"}`, nil, 413},
		"an action on another app":    {true, "POST", "/api/v1/actions/approve", `{"phase":"staging","reason":"ok"}`, map[string]string{HeaderApplication: ns + ":impostor"}, 404},
		"a phase the plan lacks":      {true, "POST", "/api/v1/actions/approve", `{"phase":"production","reason":"ok"}`, nil, 409},
		"a pause end that is no time": {true, "POST", "/api/v1/actions/pause", `{"reason":"ok","until":"tomorrow"}`, nil, 409},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s := newStack(t, c.actions)
			s.kube.ClearActions()
			w := call(s.h, c.method, c.path, c.body, c.headers)
			if w.Code != c.code {
				t.Fatalf("%d, want %d: %s", w.Code, c.code, w.Body)
			}
			body := w.Body.String()
			for _, leak := range []string{secret, `"rollout"`, `"phases"`, "guestbook-dev-1"} {
				if strings.Contains(body, leak) {
					t.Fatalf("a refusal says %q: %s", leak, body)
				}
			}
			for _, a := range s.kube.Actions() {
				if a.GetVerb() != "get" && a.GetVerb() != "list" {
					t.Fatalf("a refused request wrote: %v", a)
				}
			}
		})
	}
}

// TestAnApprovalIsTheCLIs: an approval records the phase with the Argo CD user and groups
// in the keys the CLI writes (the agent checks the gate's groups and distinct approvers);
// a second one while it is pending is refused as the CLI refuses it.
func TestAnApprovalIsTheCLIs(t *testing.T) {
	s := newStack(t, true)
	w := call(s.h, "POST", "/api/v1/actions/approve", `{"phase":"staging","reason":"checks green"}`, nil)
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var res Result
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || res != (Result{Recorded: "approve", Rollout: "guestbook", By: "alice"}) {
		t.Fatalf("%v %+v", err, res)
	}
	cm, err := s.kube.CoreV1().ConfigMaps(ns).Get(context.Background(), contract.StateConfigMap("guestbook"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{contract.ApproveKey: "staging", contract.ApproverKey: "alice", contract.ApproverGroupsKey: "sre,system:authenticated",
		contract.ByKey: "alice", contract.ReasonKey: "checks green"}
	for k, v := range want {
		if cm.Data[k] != v {
			t.Fatalf("%s=%q, want %q (data %v)", k, cm.Data[k], v, cm.Data)
		}
	}
	w = call(s.h, "POST", "/api/v1/actions/approve", `{"phase":"staging","reason":"me too"}`, map[string]string{HeaderUsername: "bob"})
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), `approve by \"alice\" is not recorded yet`) {
		t.Fatalf("a second approval over a pending one: %d %s", w.Code, w.Body)
	}
	if w := call(s.h, "GET", "/api/v1/status", "", nil); w.Header().Get(HeaderActions) != "on" {
		t.Fatalf("actions on, the status says %q", w.Header().Get(HeaderActions))
	}
}

// TestEachActionWritesItsKey: pause, resume and promote write the CLI's keys with who and why.
func TestEachActionWritesItsKey(t *testing.T) {
	for verb, c := range map[string]struct{ body, key, value string }{
		"pause":   {`{"reason":"incident","until":"2026-11-22T04:00:00Z"}`, contract.PauseUntilKey, "2026-11-22T04:00:00Z"},
		"resume":  {`{"reason":"fixed"}`, contract.ResumeKey, "fixed"},
		"promote": {`{"phase":"staging","reason":"seen enough"}`, contract.PromoteKey, "staging"},
		"reject":  {`{"phase":"staging","reason":"bad"}`, contract.RejectKey, "staging"},
	} {
		t.Run(verb, func(t *testing.T) {
			s := newStack(t, true)
			if w := call(s.h, "POST", "/api/v1/actions/"+verb, c.body, map[string]string{HeaderUsername: "carol"}); w.Code != http.StatusOK {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			cm, _ := s.kube.CoreV1().ConfigMaps(ns).Get(context.Background(), contract.StateConfigMap("guestbook"), metav1.GetOptions{})
			if cm.Data[c.key] != c.value || cm.Data[contract.ByKey] != "carol" {
				t.Fatalf("data %v", cm.Data)
			}
		})
	}
}

// TestRequestsInFlightAreBounded: with MaxInFlight 1, a second request while the first
// waits on the API server gets 503 at once.
func TestRequestsInFlightAreBounded(t *testing.T) {
	kube := fake.NewClientset(renderedPlan(t), stateCM(t))
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	kube.PrependReactor("get", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		entered <- struct{}{}
		<-release
		return false, nil, nil
	})
	argo := argofake.NewSimpleClientset(parentApp(parent, "default", "guestbook"))
	h, err := New(Options{Log: slog.New(slog.NewTextHandler(t.Output(), nil)), Namespace: ns, Secret: []byte(secret), MaxInFlight: 1, ConfigMaps: kube.CoreV1(), Applications: argo.ArgoprojV1alpha1()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int)
	go func() { done <- call(h, "GET", "/api/v1/status", "", nil).Code }()
	<-entered
	if w := call(h, "GET", "/api/v1/status", "", nil); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("a request over the bound: %d", w.Code)
	}
	close(release)
	if code := <-done; code != http.StatusOK {
		t.Fatalf("the first request: %d", code)
	}
}

func TestNewNeedsASecret(t *testing.T) {
	kube, argo := fake.NewClientset(), argofake.NewSimpleClientset()
	if _, err := New(Options{Namespace: ns, ConfigMaps: kube.CoreV1(), Applications: argo.ArgoprojV1alpha1()}); err == nil {
		t.Fatal("a handler without a secret")
	}
}

// TestReadSecret: a short secret is refused without saying it; white space is dropped.
func TestReadSecret(t *testing.T) {
	dir := t.TempDir()
	short, long := filepath.Join(dir, "short"), filepath.Join(dir, "long")
	_ = os.WriteFile(short, []byte("hunter2\n"), 0o600)
	_ = os.WriteFile(long, []byte(secret+"\n"), 0o600)
	if _, err := ReadSecret(short); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("a short secret: %v", err)
	}
	if b, err := ReadSecret(long); err != nil || !bytes.Equal(b, []byte(secret)) {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := ReadSecret(filepath.Join(dir, "none")); err == nil {
		t.Fatal("a missing file")
	}
}

// TestGroupsAreRecordedOnlyWhenTrusted: without TrustGroups an approval carries the user
// only (argocd-server passes a browser's own groups header for users without groups).
func TestGroupsAreRecordedOnlyWhenTrusted(t *testing.T) {
	s := newStackWith(t, Options{Actions: true})
	if w := call(s.h, "POST", "/api/v1/actions/approve", `{"phase":"staging","reason":"ok"}`, nil); w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	cm, _ := s.kube.CoreV1().ConfigMaps(ns).Get(context.Background(), contract.StateConfigMap("guestbook"), metav1.GetOptions{})
	if _, ok := cm.Data[contract.ApproverGroupsKey]; ok || cm.Data[contract.ApproverKey] != "alice" {
		t.Fatalf("groups recorded without trust: %v", cm.Data)
	}
}

// TestAGroupsHeaderThatMaySplitAGroupRecordsNone: argocd-server joins a user's groups with
// commas, so the group cn=dev,sre reached the agent as cn=dev and sre, and counted for a
// gate asking sre (issue 47). A header with an item holding '=' (an LDAP DN's part) records
// no groups; a header of plain names records them.
func TestAGroupsHeaderThatMaySplitAGroupRecordsNone(t *testing.T) {
	for header, want := range map[string]string{
		"cn=dev,sre":                     "",
		"sre,cn=dev,ou=groups,dc=corp":   "",
		"cn=sre,ou=groups,dc=corp":       "",
		"sre, ops ,system:authenticated": "sre,ops,system:authenticated",
		"platform-team,sre":              "platform-team,sre",
	} {
		s := newStack(t, true)
		w := call(s.h, "POST", "/api/v1/actions/approve", `{"phase":"staging","reason":"ok"}`, map[string]string{HeaderGroups: header})
		if w.Code != http.StatusOK {
			t.Fatalf("%q: %d %s", header, w.Code, w.Body)
		}
		cm, _ := s.kube.CoreV1().ConfigMaps(ns).Get(context.Background(), contract.StateConfigMap("guestbook"), metav1.GetOptions{})
		if got := cm.Data[contract.ApproverGroupsKey]; got != want || cm.Data[contract.ApproverKey] != "alice" {
			t.Errorf("%q: approver-groups %q, want %q (%v)", header, got, want, cm.Data)
		}
	}
}
