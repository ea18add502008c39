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

// TestAProjectWindowsCronIsArgoCDs: an AppProject's window is judged with Argo CD's cron
// (robfig/cron v3): a start that spring forward skips does not happen that day, where
// maintained forks (netresearch/go-cron) start it right after the change — a window Argo
// CD keeps closed would be open to the engine. A swap of the cron library fails here.
func TestAProjectWindowsCronIsArgoCDs(t *testing.T) {
	proj := &v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: v1alpha1.AppProjectSpec{SyncWindows: v1alpha1.SyncWindows{
		{Kind: "allow", Schedule: "30 2 * * *", Duration: "1h", TimeZone: "America/New_York"}}}}
	w := Compile(proj)[0]
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	if w.ActiveAt(time.Date(2024, 3, 10, 3, 45, 0, 0, ny)) {
		t.Fatal("02:30 does not happen on 2024-03-10 in New York: the window is closed all that day")
	}
	if !w.ActiveAt(time.Date(2024, 3, 11, 2, 45, 0, 0, ny)) {
		t.Fatal("the window opens at 02:30 the next day")
	}
}
