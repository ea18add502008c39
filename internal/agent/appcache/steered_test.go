package appcache

import (
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// TestOnlySteeredApplicationsAreCachedWhole: a child (rollout label) and a parent a plan
// names are cached whole; any other Application of the namespace as its name only.
func TestOnlySteeredApplicationsAreCachedWhole(t *testing.T) {
	var parents Parents
	parents.Set("fleet", "fleet")
	for _, c := range []struct {
		app   *v1alpha1.Application
		whole bool
	}{
		{testApp("fleet-dev-1", map[string]string{contract.LabelRollout: "fleet"}), true},
		{testApp("fleet", nil), true},
		{testApp("someone-elses", map[string]string{"team": "a"}), false},
	} {
		got, err := parents.Transform(c.app.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		app := got.(*v1alpha1.Application)
		if whole := app.Spec.Source != nil && app.Status.Sync.Status == v1alpha1.SyncStatusCodeSynced; whole != c.whole {
			t.Errorf("%s cached whole: %v, want %v", c.app.Name, whole, c.whole)
		}
		if app.Name != c.app.Name || app.ResourceVersion != c.app.ResourceVersion || IsNameOnly(app) == c.whole {
			t.Errorf("%s cached as %+v", c.app.Name, app.ObjectMeta)
		}
	}
}

// testApp is an Application with a plugin source and a synced status.
func testApp(name string, labels map[string]string) *v1alpha1.Application {
	return &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "argocd", Labels: labels, ResourceVersion: "5"},
		Spec:   v1alpha1.ApplicationSpec{Source: &v1alpha1.ApplicationSource{RepoURL: "https://git.example/fleet", Plugin: &v1alpha1.ApplicationSourcePlugin{}}},
		Status: v1alpha1.ApplicationStatus{Sync: v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeSynced}}}
}
