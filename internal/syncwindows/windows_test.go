package syncwindows

import (
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/control"
)

// TestOfMatchesAsArgoCDDoes: only the windows Argo CD's Matches applies to the
// child, named by project and index; one Argo CD could not evaluate denies.
func TestOfMatchesAsArgoCDDoes(t *testing.T) {
	proj := &v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: "team"}, Spec: v1alpha1.AppProjectSpec{SyncWindows: v1alpha1.SyncWindows{
		{Kind: "deny", Schedule: "0 22 * * *", Duration: "8h", Applications: []string{"*-prod"}},
		{Kind: "deny", Schedule: "0 22 * * *", Duration: "8h", Clusters: []string{"dev"}},
		{Kind: "allow", Schedule: "bad", Duration: "1h", Namespaces: []string{"demo"}},
	}}}
	app := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "eu-prod"},
		Spec: v1alpha1.ApplicationSpec{Destination: v1alpha1.ApplicationDestination{Name: "eu", Namespace: "demo"}}}
	ws := Of(proj, app)
	if len(ws) != 2 || ws[0].Name != "appproject/team/0" || ws[1].Name != "appproject/team/2" {
		t.Fatalf("windows %+v", ws)
	}
	if ws[1].Kind != "deny" || !ws[1].ActiveAt(time.Now()) || ws[1].Name == control.InvalidFleetWindows {
		t.Fatalf("an unreadable project window does not deny: %+v", ws[1])
	}
}
