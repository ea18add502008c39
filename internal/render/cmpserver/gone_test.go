package cmpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// parentStore is a memStore that knows which rollout a parent renders.
type parentStore struct {
	*memStore
	parent, rollout string
}

func (p parentStore) RolloutOf(parent string) (string, bool) { return p.rollout, parent == p.parent }

// TestASpecGoneFromGitIsRefusedUntilTheRolloutIsRemoved: a parent whose rollout deploys
// children and whose spec is gone gets an error naming the revision to confirm and the key;
// while the removal runs it is still refused; once every child is gone it renders nothing.
func TestASpecGoneFromGitIsRefusedUntilTheRolloutIsRemoved(t *testing.T) {
	root := repo(t)
	store := deployedStore(t, root)
	client, _ := startServer(t, parentStore{memStore: store, parent: "web-parent", rollout: "web"}, 100*time.Millisecond)
	env := []string{contract.EnvAppName + "=web-parent"}
	_, err := generate(context.Background(), client, root, "apps", env)
	st, _ := status.FromError(err)
	for _, want := range []string{contract.SpecRemovedMarker, "rollout web deploys", "confirm-remove-rollout: " + store.st.Deployed, "cmp-phase confirm-remove-rollout web " + store.st.Deployed} {
		if !strings.Contains(st.Message(), want) {
			t.Fatalf("refusal %q lacks %q", st.Message(), want)
		}
	}
	if st.Code() == codes.OK {
		t.Fatal("must fail")
	}
	if _, err := generate(context.Background(), client, root, "apps", []string{contract.EnvAppName + "=other"}); err == nil || !strings.Contains(err.Error(), "no ApplicationSet found") {
		t.Fatalf("a parent with no rollout: %v", err)
	}
	store.mu.Lock()
	store.st = &state.State{Schema: state.Schema, Generation: 6, Deployed: store.st.Deployed, Revisions: store.st.Revisions, Children: store.st.Children, RemovedRevision: store.st.Deployed}
	store.mu.Unlock()
	if _, err := generate(context.Background(), client, root, "apps", env); err == nil || !strings.Contains(err.Error(), "is being removed") {
		t.Fatalf("during the removal: %v", err)
	}
	store.mu.Lock()
	store.st.Children = nil
	store.mu.Unlock()
	docs, err := generate(context.Background(), client, root, "apps", env)
	if err != nil || len(docs.GetManifests()) != 0 {
		t.Fatalf("removed: %d documents, %v", len(docs.GetManifests()), err)
	}
}
