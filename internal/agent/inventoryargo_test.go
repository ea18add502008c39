package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/cmp-phase/cmp-phase/internal/agent/argoapi"
	"github.com/cmp-phase/cmp-phase/internal/agent/clustersource"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
)

// argoClusters is an argocd-server whose cluster API answers *body (a JSON ClusterList).
func argoClusters(t *testing.T, body *atomic.Value) *argoapi.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/account/can-i/clusters/get/*" {
			_, _ = w.Write([]byte(`{"value":"yes"}`))
			return
		}
		if r.URL.Path != "/api/v1/clusters" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(body.Load().(string)))
	}))
	t.Cleanup(srv.Close)
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("t0ken"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := argoapi.New(argoapi.Config{Server: srv.URL, TokenFile: tok})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTheInventoryFromArgoCDNeedsNoSecret: with --inventory-from argocd the agent publishes
// the inventory from argocd-server's cluster list, the same one the Secrets give, without
// listing a Secret; an empty list after clusters were published keeps them (an account
// that may not get clusters sees none), and the last check before a delete asks
// argocd-server again.
func TestTheInventoryFromArgoCDNeedsNoSecret(t *testing.T) {
	ctx := context.Background()
	secretMode := newFakeAgent(t, nil, clusterSecret("prod-1", "https://prod-1", map[string]string{"env": "prod"}), clusterSecret("dev-1", "https://dev-1", nil))
	if _, err := secretMode.publish(ctx); err != nil {
		t.Fatal(err)
	}
	want := secretMode.invBytes

	var body atomic.Value
	body.Store(`{"items":[{"server":"https://prod-1","name":"prod-1","config":{},"labels":{"env":"prod"}},{"server":"https://dev-1","name":"dev-1","config":{}},` +
		`{"server":"https://kubernetes.default.svc","name":"in-cluster","config":{}}]}`)
	f := newFakeAgent(t, nil)
	f.opts.InventoryFrom, f.opts.ArgoCD, f.caches.secrets = clustersource.FromArgoCD, argoClusters(t, &body), nil
	next, err := f.publish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(f.invBytes) != string(want) {
		t.Fatalf("from argocd-server:\n%s\nfrom the Secrets:\n%s", f.invBytes, want)
	}
	if d := next.Sub(f.now()); d <= 0 || d > f.opts.InventoryPoll {
		t.Fatalf("read again in %s, want within --inventory-poll %s", d, f.opts.InventoryPoll)
	}
	if back, err := f.clusterRegistered(ctx, "prod-1"); !back || err != nil {
		t.Fatalf("prod-1 registered: %v %v", back, err)
	}
	body.Store(`{"items":[]}`)
	if _, err := f.publish(ctx); err == nil || !strings.Contains(err.Error(), "clusters, get") {
		t.Fatalf("an empty list after clusters: %v", err)
	}
	if back, err := f.clusterRegistered(ctx, "prod-1"); back || err == nil {
		t.Fatalf("a removal's last check on an empty list: %v %v", back, err)
	}
	cm, err := f.kube.CoreV1().ConfigMaps(testNS).Get(ctx, contract.InventoryConfigMap, metav1.GetOptions{})
	if err != nil || !strings.Contains(cm.Data[contract.InventoryKey], "prod-1") {
		t.Fatalf("the inventory is kept: %v %v", cm.Data, err)
	}
	for _, a := range f.kube.Actions() {
		if a.GetResource().Resource == "secrets" {
			t.Fatalf("the agent read a Secret: %s", a.GetVerb())
		}
	}
}

// TestArgoCDsListNeverProvesAClusterGone: prod-2's Secret is still there, but argocd-server
// stops listing it (its config no longer parses, or a deny rule hides it): after the removal
// grace the engine would remove its child, and the last check keeps it, saying why.
func TestArgoCDsListNeverProvesAClusterGone(t *testing.T) {
	ctx := context.Background()
	child := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "app-prod-2", Namespace: testNS,
		Labels: map[string]string{contract.LabelCluster: "prod-2"}}}
	var body atomic.Value
	body.Store(`{"items":[{"server":"https://prod-1","name":"prod-1"},{"server":"https://prod-2","name":"prod-2"}]}`)
	f := newFakeAgent(t, []runtime.Object{child})
	f.opts.InventoryFrom, f.opts.ArgoCD, f.caches.secrets = clustersource.FromArgoCD, argoClusters(t, &body), nil
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	f.now = func() time.Time { return now }
	for _, list := range []string{"", `{"items":[{"server":"https://prod-1","name":"prod-1"}]}`, ""} {
		if list != "" {
			body.Store(list)
		}
		if _, err := f.publish(ctx); err != nil {
			t.Fatal(err)
		}
		now = now.Add(f.opts.RemovalGrace + time.Minute)
	}
	if strings.Contains(string(f.invBytes), "prod-2") {
		t.Fatalf("prod-2 is held past the grace: %s", f.invBytes)
	}
	p := &pass{plan: &plan.Plan{Rollout: "app", Parent: "app-parent"}, log: f.log, children: map[string]*v1alpha1.Application{"app-prod-2": child}}
	if err := f.deleteChild(ctx, p, "app-prod-2"); err != nil {
		t.Fatalf("deleteChild: %v", err)
	}
	getApp(t, f, "app-prod-2")
	if ev := drain(f.events); len(ev) != 1 || !strings.HasPrefix(ev[0], "Warning RemovalRefused not deleting app-prod-2: cluster prod-2 is not in argocd-server's list") || !strings.Contains(ev[0], "(fix: ") {
		t.Fatalf("events %q", ev)
	}
}
