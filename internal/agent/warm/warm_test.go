package warm

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/agent/argoapi"
)

func warmChild() *v1alpha1.Application {
	return &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: "web-prod-1", Namespace: "argocd"},
		Spec: v1alpha1.ApplicationSpec{Project: "default",
			Source:      &v1alpha1.ApplicationSource{RepoURL: "https://git/x", Path: "web", TargetRevision: "aaaa"},
			Destination: v1alpha1.ApplicationDestination{Server: "https://prod-1", Namespace: "web"}},
	}
}

func docOf(t *testing.T, app *v1alpha1.Application) []byte {
	t.Helper()
	b, err := json.Marshal(app)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWarmableOnlyWhenTheMoveChangesTheRevisionAlone: a warm generates what the move's
// comparison reads only when nothing else of the repo-server's cache key changes.
func TestWarmableOnlyWhenTheMoveChangesTheRevisionAlone(t *testing.T) {
	live := warmChild()
	moved := live.DeepCopy()
	moved.Spec.Source.TargetRevision = "bbbb"
	moved.Labels = map[string]string{"cmp-phase.io/phase": "prod"} // metadata is not in the key
	if rev, ok := Warmable(live, docOf(t, moved)); !ok || rev != "bbbb" {
		t.Fatalf("a pin move is warmable: %q %v", rev, ok)
	}
	for name, edit := range map[string]func(a *v1alpha1.Application){
		"same revision": func(a *v1alpha1.Application) {},
		"another path":  func(a *v1alpha1.Application) { a.Spec.Source.TargetRevision, a.Spec.Source.Path = "bbbb", "web2" },
		"helm values": func(a *v1alpha1.Application) {
			a.Spec.Source.TargetRevision, a.Spec.Source.Helm = "bbbb", &v1alpha1.ApplicationSourceHelm{ValueFiles: []string{"x"}}
		},
		"destination": func(a *v1alpha1.Application) {
			a.Spec.Source.TargetRevision, a.Spec.Destination.Namespace = "bbbb", "web2"
		},
		"project": func(a *v1alpha1.Application) { a.Spec.Source.TargetRevision, a.Spec.Project = "bbbb", "other" },
		"several sources": func(a *v1alpha1.Application) {
			a.Spec.Sources = v1alpha1.ApplicationSources{*a.Spec.Source}
			a.Spec.Source = nil
		},
		"a hydrator": func(a *v1alpha1.Application) {
			a.Spec.Source.TargetRevision, a.Spec.SourceHydrator = "bbbb", &v1alpha1.SourceHydrator{}
		},
	} {
		want := live.DeepCopy()
		edit(want)
		if rev, ok := Warmable(live, docOf(t, want)); ok {
			t.Errorf("%s: warmed at %q", name, rev)
		}
	}
	if _, ok := Warmable(live, []byte("{not json")); ok {
		t.Error("a render that does not decode is not warmed")
	}
}

// TestWarmerWarmsEachChildAndRevisionOnce: queued warms reach argocd-server once per
// (child, revision), a failed one too; a full queue drops (never blocks the rollout's
// pass); a state generation is looked at once.
func TestWarmerWarmsEachChildAndRevisionOnce(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	fail := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r.URL.Path+"@"+r.URL.Query().Get("revision"))
		if fail && r.URL.Query().Get("revision") == "bad" {
			fail = false
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	token := filepath.Join(t.TempDir(), "token")
	_ = os.WriteFile(token, []byte("t"), 0o600)
	api, err := argoapi.New(argoapi.Config{Server: srv.URL, TokenFile: token})
	if err != nil {
		t.Fatal(err)
	}
	w := New(api, nil)
	if w.Looked("web") != 0 || !w.FirstLook("web", 3) || w.FirstLook("web", 3) || !w.FirstLook("web", 4) {
		t.Fatal("each state generation is looked at once")
	}
	if w.Looked("web") != 4 || w.Looked("api") != 0 || (*Warmer)(nil).Looked("web") != 0 {
		t.Fatal("the generation looked at last is the one the engine is told")
	}
	w.Forget("web")
	if w.Looked("web") != 0 {
		t.Fatal("a forgotten rollout has looked at nothing")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan struct{})
	go func() { w.Run(ctx, slog.New(slog.DiscardHandler)); close(stopped) }()
	w.Add(Job{"a", "argocd", "r1"})
	w.Add(Job{"a", "argocd", "r1"})
	w.Add(Job{"a", "argocd", "bad"})
	waitFor(t, func() bool {
		return testutil.ToFloat64(w.done.WithLabelValues("warmed")) == 1 && testutil.ToFloat64(w.done.WithLabelValues("failed")) == 1
	})
	cancel()
	<-stopped // the workers are done: what is added now stays in the queue
	mu.Lock()
	slices.Sort(asked)
	if !slices.Equal(asked, []string{"/api/v1/applications/a/manifests@bad", "/api/v1/applications/a/manifests@r1"}) {
		t.Fatalf("asked %v", asked)
	}
	mu.Unlock()
	w.Add(Job{"a", "argocd", "bad"}) // failed: never asked again (the repo-server counts failures per key)
	w.Add(Job{"a", "argocd", "r1"})
	if len(w.queue) != 0 {
		t.Fatalf("a warm done or failed is not queued again: %d queued", len(w.queue))
	}
	w.Add(Job{"b", "argocd", "r1"})
	if len(w.queue) != 1 {
		t.Fatalf("another child is: %d queued", len(w.queue))
	}

	full := New(api, nil) // no workers: the queue fills
	for i := range warmQueue + 5 {
		full.Add(Job{"c", "argocd", string(rune('A' + i))})
	}
	if len(full.queue) != warmQueue {
		t.Fatalf("queue %d", len(full.queue))
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
