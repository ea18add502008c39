package agent

import (
	"context"
	"fmt"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
)

func polledApp(name, repo, rev, resolved string) *v1alpha1.Application {
	app := parentApp()
	app.Name, app.Spec.Source.RepoURL, app.Spec.Source.TargetRevision, app.Status.Sync.Revision = name, repo, rev, resolved
	return app
}

func names(apps []*v1alpha1.Application) string {
	var out []string
	for _, a := range apps {
		out = append(out, a.Name)
	}
	return fmt.Sprint(out)
}

// TestPolledParentsAreThoseThePlansName: the parents polled are the ones the cached plans
// name, once each, that a refresh may move.
func TestPolledParentsAreThoseThePlansName(t *testing.T) {
	pinned := polledApp("pinned", "https://git/x", "0123456789abcdef0123456789abcdef01234567", "")
	f := newFakeAgent(t, nil, planOf("web", "web-parent"), planOf("pin", "pinned"), planOf("lost", "missing-parent"),
		polledApp("web-parent", "https://git/x", "main", ""), pinned, polledApp("unplanned", "https://git/x", "main", ""))
	if got := names(f.polledParents(context.Background())); got != "[web-parent]" {
		t.Fatalf("polled %s", got)
	}
}

// TestRefreshParentRequestsANormalRefresh: one patch of the refresh annotation, conditional
// on the version cached; a parent changed or gone meanwhile is left for the next interval.
func TestRefreshParentRequestsANormalRefresh(t *testing.T) {
	ctx := context.Background()
	live := parentApp()
	live.ResourceVersion = "5"
	f := newFakeAgent(t, []runtime.Object{live})
	if err := f.refreshParent(ctx, live.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if got := getApp(t, f, "web-parent").Annotations[v1alpha1.AnnotationKeyRefresh]; got != "normal" {
		t.Fatalf("refresh annotation %q", got)
	}
	gone := parentApp()
	gone.Name = "gone"
	if err := f.refreshParent(ctx, gone); err != nil {
		t.Fatalf("a parent gone meanwhile: %v", err)
	}
}
