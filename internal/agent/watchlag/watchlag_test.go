package watchlag

import (
	"maps"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func app(name, rv string, reconciled, finished time.Time) *v1alpha1.Application {
	a := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv}}
	a.Status.ReconciledAt = &metav1.Time{Time: reconciled}
	if !finished.IsZero() {
		a.Status.OperationState = &v1alpha1.OperationState{StartedAt: metav1.Time{Time: finished.Add(-time.Second)}, FinishedAt: &metav1.Time{Time: finished}}
	}
	return a
}

// TestThePassReadsTheNewestChangeOnce: the newest input is the one with the newest status
// timestamp, the highest resourceVersion (numerically: "900" is older than "1000") of
// those in the same second; a rollout's passes count a change's lag once; a write that
// carries no new timestamp (the agent's own) is no new change.
func TestThePassReadsTheNewestChangeOnce(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	children := map[string]*v1alpha1.Application{
		"dev-1": app("dev-1", "900", t0.Add(2*time.Second), time.Time{}),
		"dev-2": app("dev-2", "1000", t0, t0.Add(2*time.Second)),
	}
	parent := app("parent", "1200", t0, time.Time{}) // written later, by the agent: no new time
	in, ok := Newest(maps.Values(children), parent, nil)
	if !ok || in.Name != "dev-2" || in.ResourceVersion != "1000" || !in.Changed.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("newest %+v %v, want dev-2 at 1000, changed at its operation's end", in, ok)
	}
	if lag := in.Lag(t0.Add(2500 * time.Millisecond)); lag != 500*time.Millisecond {
		t.Fatalf("lag %s", lag)
	}
	if lag := in.Lag(t0); lag != 0 {
		t.Fatalf("a read before the (whole-second) change time lags %s", lag)
	}
	var tr Tracker
	if !tr.Fresh("web", in) || tr.Fresh("web", in) || !tr.Fresh("api", in) {
		t.Fatal("a change is fresh once per rollout")
	}
	children["dev-2"].ResourceVersion = "1300" // the agent moved it: same status
	if in, _ = Newest(maps.Values(children), parent); tr.Fresh("web", in) {
		t.Fatalf("the agent's own write is fresh: %+v", in)
	}
	children["dev-1"] = app("dev-1", "1301", t0.Add(7*time.Second), time.Time{})
	if in, _ = Newest(maps.Values(children), parent); in.Name != "dev-1" || !tr.Fresh("web", in) {
		t.Fatalf("a later change is fresh: %+v", in)
	}
	if _, ok := Newest(maps.Values(map[string]*v1alpha1.Application{}), nil); ok {
		t.Fatal("nothing read: no newest")
	}
}
