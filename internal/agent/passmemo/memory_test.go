package passmemo

import (
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
)

func child(name, rv, revision string) *v1alpha1.Application {
	return &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("u-" + name), ResourceVersion: rv,
		Annotations: map[string]string{"cmp-phase.io/revision": revision}}}
}

// TestASetKeepsOneMemoryPerRollout: the same memory until the rollout is forgotten, then
// a new one; another rollout's is its own.
func TestASetKeepsOneMemoryPerRollout(t *testing.T) {
	var s Set
	m := s.Of("web")
	m.SetParent(map[string]string{"k": "v"})
	if s.Of("web") != m || s.Of("api") == m || s.Of("web").Parent()["k"] != "v" {
		t.Fatal("one memory per rollout")
	}
	s.Forget("web")
	if s.Of("web") == m || s.Of("web").Parent() != nil || s.Of("web").State == nil {
		t.Fatal("a forgotten rollout starts afresh")
	}
}

// TestObserveReusesOnlyUnchangedChildren: a child of the version observed before keeps its
// observation, a changed one is observed again, a gone one is forgotten.
func TestObserveReusesOnlyUnchangedChildren(t *testing.T) {
	m := new(Set).Of("web")
	m.Observe([]*v1alpha1.Application{child("a", "1", "r1"), child("b", "1", "r1")})
	stale := child("a", "1", "r2") // same version, other content: only a reuse shows r1
	got := m.Observe([]*v1alpha1.Application{stale, child("b", "2", "r2")})
	if got["a"].Revision != "r1" || got["b"].Revision != "r2" {
		t.Fatalf("observations: %+v", got)
	}
	m.Observe([]*v1alpha1.Application{child("b", "2", "r2")})
	if _, kept := m.seen["a"]; kept {
		t.Fatal("a gone child is still remembered")
	}
	// as many children as before, one of them new: the one gone is forgotten all the same
	m.Observe([]*v1alpha1.Application{child("b", "2", "r2"), child("c", "1", "r2")})
	m.Observe([]*v1alpha1.Application{child("c", "1", "r2"), child("d", "1", "r2")})
	if len(m.seen) != 2 || m.seen["c"].rv != "1" || m.seen["d"].rv != "1" {
		t.Fatalf("remembered: %+v", m.seen)
	}
}

// TestUnmovedSkipsMovesTheCacheHasNotSeen: a child moved from the version the cache still
// shows is not moved again; once the cache shows another version it is moved if it must.
func TestUnmovedSkipsMovesTheCacheHasNotSeen(t *testing.T) {
	m := new(Set).Of("web")
	a, b := child("a", "1", "r1"), child("b", "1", "r1")
	moves := []rollout.Move{{Child: "a", Revision: "r2"}, {Child: "b", Revision: "r2"}}
	m.Moved(a)
	live := map[string]*v1alpha1.Application{"a": a, "b": b}
	if got := m.Unmoved(moves, live); len(got) != 1 || got[0].Child != "b" {
		t.Fatalf("moves while the cache lags: %+v", got)
	}
	if len(moves) != 2 {
		t.Fatal("unmoved changed its argument")
	}
	live["a"] = child("a", "7", "r1") // changed since (not by our move): move again
	if got := m.Unmoved(moves, live); len(got) != 2 {
		t.Fatalf("moves after the cache caught up: %+v", got)
	}
	if len(m.sent) != 0 {
		t.Fatal("a move the cache has seen is still remembered")
	}
}
