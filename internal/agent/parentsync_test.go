package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argolisters "github.com/argoproj/argo-cd/v3/pkg/client/listers/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// automatedParent is an automated parent naming PHASE_GEN gen, with sync options and retry.
func automatedParent(gen string) *v1alpha1.Application {
	app := parentApp(&v1alpha1.EnvEntry{Name: "OTHER", Value: "x"}, &v1alpha1.EnvEntry{Name: contract.EnvPhaseGen, Value: gen})
	app.Spec.Project = "default"
	app.Spec.SyncPolicy = &v1alpha1.SyncPolicy{Automated: &v1alpha1.SyncPolicyAutomated{Prune: new(true)},
		SyncOptions: v1alpha1.SyncOptions{"ApplyOutOfSyncOnly=true"}, Retry: &v1alpha1.RetryStrategy{Limit: 2}}
	return app
}

// TestStartParentSync: the parent gets the sync its automated sync would start, of the
// source naming the generation the agent enacted; never over a pending operation, never
// when the parent names another generation by then.
func TestStartParentSync(t *testing.T) {
	ctx := context.Background()
	cached := automatedParent("5")
	f := newFakeAgent(t, []runtime.Object{automatedParent("5")}, cached)
	p := &pass{log: f.log}
	f.startParentSync(ctx, p, "web-parent", cached, 5)
	op := getApp(t, f, "web-parent").Operation
	if op == nil || op.Sync == nil || op.Sync.Source == nil {
		t.Fatalf("no sync started: %+v\n%s", op, f.logs)
	}
	if got := genOfSource(*op.Sync.Source); got != 5 || op.Sync.Source.Plugin.Env[0].Value != "x" || op.Sync.Source.RepoURL != "https://git/x" {
		t.Fatalf("the sync's source is the spec's, naming 5: %+v", op.Sync.Source)
	}
	if !op.Sync.Prune || len(op.Sync.SyncOptions) != 1 || op.Retry.Limit != 2 || !op.InitiatedBy.Automated || op.InitiatedBy.Username != "cmp-phase-agent" {
		t.Fatalf("the sync is the automated sync's: %+v", op)
	}

	f.logs.Reset()
	f.startParentSync(ctx, p, "web-parent", automatedParent("6"), 6)
	if op := getApp(t, f, "web-parent").Operation; genOfSource(*op.Sync.Source) != 5 {
		t.Fatalf("a pending operation is kept: %+v", op.Sync.Source)
	}
	if !strings.Contains(f.logs.String(), "parent sync not started") {
		t.Fatalf("the refusal is logged: %s", f.logs)
	}

	f = newFakeAgent(t, []runtime.Object{automatedParent("6")}, cached)
	f.startParentSync(ctx, p, "web-parent", cached, 5)
	if op := getApp(t, f, "web-parent").Operation; op != nil {
		t.Fatalf("the parent names another generation: no sync of 5: %+v", op)
	}
}

// TestParentCanSync is Argo CD's own test of the parent's project's sync windows.
func TestParentCanSync(t *testing.T) {
	f := newFakeAgent(t, nil)
	parent := automatedParent("5")
	if f.parentCanSync(parent) {
		t.Fatal("no project cache: not")
	}
	projects := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	f.caches.projects = argolisters.NewAppProjectLister(projects).AppProjects(testNS)
	if f.parentCanSync(parent) {
		t.Fatal("a project the cache does not hold: not")
	}
	proj := &v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: testNS}}
	if err := projects.Add(proj); err != nil {
		t.Fatal(err)
	}
	if !f.parentCanSync(parent) {
		t.Fatal("a project without windows lets it sync")
	}
	proj.Spec.SyncWindows = v1alpha1.SyncWindows{{Kind: "deny", Schedule: "* * * * *", Duration: "1h", Applications: []string{"*"}}}
	if f.parentCanSync(parent) {
		t.Fatal("a deny window in force: not")
	}
	proj.Spec.SyncWindows[0].Applications = []string{"other"}
	if !f.parentCanSync(parent) {
		t.Fatal("a deny window for other applications does not apply")
	}
}
