package parentpoll

import (
	"fmt"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// TestPollableParents: a parent is polled unless it is being deleted, a refresh is pending,
// it is pinned to a commit or renders no plugin.
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
		{"no plugin", func(a *v1alpha1.Application) { a.Spec.Source.Plugin = nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := parentApp()
			app.Spec.Source.TargetRevision = "main"
			tc.change(app)
			if got := Pollable(app); got != tc.want {
				t.Fatalf("pollable: %v, want %v", got, tc.want)
			}
		})
	}
}

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

// TestInTurnRefreshesOneParentPerSourceInTurn: parents of one repository and revision
// (shards) cost one refresh an interval, taken in turn; while one has resolved another
// commit than the others, all are refreshed; another source is polled on its own.
func TestInTurnRefreshesOneParentPerSourceInTurn(t *testing.T) {
	s0, s1, s2 := polledApp("fleet-0", "https://git/x", "main", "aaa"), polledApp("fleet-1", "https://git/x", "main", "aaa"), polledApp("fleet-2", "https://git/x", "main", "aaa")
	other := polledApp("web", "https://git/y", "main", "ccc")
	parents := []*v1alpha1.Application{s2, other, s0, s1}
	for turn, want := range []string{"[fleet-0 web]", "[fleet-1 web]", "[fleet-2 web]", "[fleet-0 web]"} {
		if got := names(InTurn(parents, turn)); got != want {
			t.Fatalf("turn %d: %s, want %s", turn, got, want)
		}
	}
	s1.Status.Sync.Revision = "bbb" // fleet-1 found a new commit on its turn
	if got := names(InTurn(parents, 2)); got != "[fleet-0 fleet-1 fleet-2 web]" {
		t.Fatalf("while they differ, all of them: %s", got)
	}
}

// TestBehindCatchesUpOnceAnInterval: while a source's parents resolved different commits,
// the ones not asked within the interval are due at once; one asked just now waits (a
// parent whose comparison keeps failing is not asked every few seconds); agreeing sources
// are not due.
func TestBehindCatchesUpOnceAnInterval(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	ahead, behindApp, fresh := polledApp("pph", "https://git/x", "HEAD", "new"), polledApp("prs", "https://git/x", "HEAD", "old"), polledApp("web", "https://git/y", "HEAD", "ccc")
	parents := []*v1alpha1.Application{behindApp, fresh, ahead}
	asked := map[string]Ask{"pph": {At: now.Add(-time.Second), Seen: []string{"new", "old"}}}
	if got := names(Behind(parents, asked, now, 30*time.Second)); got != "[prs]" {
		t.Fatalf("due %s", got)
	}
	asked["prs"] = Ask{At: now.Add(-time.Second), Seen: []string{"new", "old"}}
	if got := names(Behind(parents, asked, now, 30*time.Second)); got != "[]" {
		t.Fatalf("asked within the interval: due %s", got)
	}
	if got := names(Behind(parents, asked, now.Add(31*time.Second), 30*time.Second)); got != "[pph prs]" {
		t.Fatalf("an interval later, still apart: due %s", got)
	}
}

// TestBehindCatchesUpWithEachNewCommit: a parent asked to catch up a moment ago is asked
// again as soon as another parent of its source resolves a newer commit (the next commit
// found on the next turn), not an interval later; the parent that found it is not asked.
func TestBehindCatchesUpWithEachNewCommit(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	prs, pph := polledApp("prs", "https://git/x", "HEAD", "v1"), polledApp("pph", "https://git/x", "HEAD", "v1")
	asked := map[string]Ask{
		"pph": {At: now.Add(-20 * time.Second), Seen: []string{"v0", "v1"}}, // caught up with v1
		"prs": {At: now.Add(-5 * time.Second), Seen: []string{"v1"}},        // its turn; found v2
	}
	prs.Status.Sync.Revision = "v2"
	parents := []*v1alpha1.Application{prs, pph}
	if got := names(Behind(parents, asked, now, 30*time.Second)); got != "[pph]" {
		t.Fatalf("due %s, want the one behind on the new commit alone", got)
	}
	asked["pph"] = Ask{At: now, Seen: []string{"v2", "v1"}}
	if got := names(Behind(parents, asked, now.Add(2*time.Second), 30*time.Second)); got != "[]" {
		t.Fatalf("its comparison still failing: due %s, want none until the interval ends", got)
	}
}

// parentApp is a parent of the plugin.
func parentApp() *v1alpha1.Application {
	return &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "web-parent", Namespace: "argocd"},
		Spec: v1alpha1.ApplicationSpec{Source: &v1alpha1.ApplicationSource{RepoURL: "https://git/x", Path: "web",
			Plugin: &v1alpha1.ApplicationSourcePlugin{Name: contract.PluginName}}}}
}
