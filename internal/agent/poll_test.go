package agent

import (
	"context"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestPollableParents: a parent is polled unless it is being deleted, a refresh is pending,
// or it is pinned to a commit.
func TestPollableParents(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*v1alpha1.Application)
		want   bool
	}{
		{"a branch", func(*v1alpha1.Application) {}, true},
		{"HEAD", func(a *v1alpha1.Application) { a.Spec.Source.TargetRevision = "HEAD" }, true},
		{"a tag", func(a *v1alpha1.Application) { a.Spec.Source.TargetRevision = "v1.2.3" }, true},
		{"pinned to a commit", func(a *v1alpha1.Application) {
			a.Spec.Source.TargetRevision = "0123456789abcdef0123456789abcdef01234567"
		}, false},
		{"a refresh pending", func(a *v1alpha1.Application) {
			a.Annotations = map[string]string{v1alpha1.AnnotationKeyRefresh: "hard"}
		}, false},
		{"being deleted", func(a *v1alpha1.Application) { a.DeletionTimestamp = &metav1.Time{} }, false},
		{"no single source", func(a *v1alpha1.Application) { a.Spec.Source = nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := parentApp()
			app.Spec.Source.TargetRevision = "main"
			tc.change(app)
			if got := pollable(app); got != tc.want {
				t.Fatalf("pollable: %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRefreshParentRequestsANormalRefresh: one patch of the refresh annotation; a parent
// the cache does not hold is left alone.
func TestRefreshParentRequestsANormalRefresh(t *testing.T) {
	ctx := context.Background()
	live := parentApp()
	f := newFakeAgent(t, []runtime.Object{live}, live.DeepCopy())
	f.parents.set("web-parent", "web")
	f.parents.set("gone-parent", "gone")
	if got := f.parents.names(); len(got) != 2 || got[0] != "gone-parent" {
		t.Fatalf("names %v", got)
	}
	for _, name := range f.parents.names() {
		if err := f.refreshParent(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if got := getApp(t, f, "web-parent").Annotations[v1alpha1.AnnotationKeyRefresh]; got != "normal" {
		t.Fatalf("refresh annotation %q", got)
	}
	if n := writes(f.argo.Actions(), "applications"); n != 1 {
		t.Fatalf("%d writes, want the one patch", n)
	}
}
