package agent

import (
	"context"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-phase/cmp-phase/internal/agent/appcache"
	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// TestAParentCachedAsItsNameIsReadLive: a plan named the parent after the cache last saw
// it; the pass reads it from the API server, whole, once per version the cache holds, and
// a parent gone reads as not found.
func TestAParentCachedAsItsNameIsReadLive(t *testing.T) {
	ctx := context.Background()
	parent := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "fleet", Namespace: testNS, ResourceVersion: "5"},
		Spec: v1alpha1.ApplicationSpec{Source: &v1alpha1.ApplicationSource{Plugin: &v1alpha1.ApplicationSourcePlugin{
			Env: v1alpha1.Env{{Name: contract.EnvPhaseGen, Value: "7"}}}}},
		Status: v1alpha1.ApplicationStatus{Sync: v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeSynced}}}
	var nobody appcache.Parents
	stub, err := nobody.Transform(parent.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeAgent(t, []runtime.Object{parent}, stub.(*v1alpha1.Application))
	for range 3 { // the informer does not transform again on resync: once per version it has
		got, err := f.parentApp(ctx, "fleet")
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec.Source == nil || appcache.IsNameOnly(got) || got.Status.Sync.Status != v1alpha1.SyncStatusCodeSynced {
			t.Errorf("parent read as %+v, want it whole", got)
		}
	}
	if n := len(f.argo.Actions()); n != 1 {
		t.Errorf("%d reads of the API server for one name-only version, want 1", n)
	}
	gone := newFakeAgent(t, nil, stub.(*v1alpha1.Application))
	if _, err := gone.parentApp(ctx, "fleet"); !apierrors.IsNotFound(err) {
		t.Errorf("a parent gone from the API server: error %v, want not found", err)
	}
}
