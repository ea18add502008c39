package agent

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/agent/failure"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/statestore"
)

func stateCM(t *testing.T, st *state.State) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.StateConfigMap("web"), Namespace: testNS, ResourceVersion: "7"}}
	if err := state.ToConfigMap(st, cm); err != nil {
		t.Fatal(err)
	}
	return cm
}

// fails makes every verb call on configmaps fail with err.
func fails(verb string, err error) k8stesting.ReactionFunc {
	return func(a k8stesting.Action) (bool, runtime.Object, error) {
		return a.GetVerb() == verb, nil, err
	}
}

// TestAStateWriteFailsByWhereItFailed: a failed read-modify-write of the state has the kind
// of the step it failed in, and only a write the API server refused is a StateWriteFailed.
func TestAStateWriteFailsByWhereItFailed(t *testing.T) {
	cur := &state.State{Schema: state.Schema, Generation: 3}
	next := &state.State{Schema: state.Schema, Generation: 4}
	huge := make([]byte, 1200<<10)
	_, _ = rand.Read(huge)
	tooLarge := &state.State{Schema: state.Schema, Generation: 4, Revisions: map[string]json.RawMessage{
		"r1": json.RawMessage(`"` + base64.StdEncoding.EncodeToString(huge) + `"`)}}
	unreadable := stateCM(t, cur)
	unreadable.BinaryData[contract.StateKey] = []byte("not gzip")
	gone := errors.New("etcd is gone")
	cases := map[string]struct {
		live    *corev1.ConfigMap // nil: none
		reactor k8stesting.ReactionFunc
		decide  func(*state.State) (*state.State, error)
		want    failure.Policy
		says    string
	}{
		"the read fails": {stateCM(t, cur), fails("get", apierrors.NewServiceUnavailable("down")), nil,
			failure.Policy{Kind: failure.Transient, Requeue: failure.Backoff, Level: slog.LevelWarn}, "down"},
		"the state is unreadable": {unreadable, nil, nil,
			failure.Policy{Kind: failure.Invalid, Requeue: failure.Slowly, Event: failure.EventInvalidInput, Level: slog.LevelWarn},
			"(fix: restore state ConfigMap argocd/web-state from a backup, or delete it and the agent rebuilds it from the live children)"},
		"the engine refuses": {stateCM(t, cur), nil, func(*state.State) (*state.State, error) {
			return nil, failure.Closed(errors.New("rebuild state: no spec"))
		},
			failure.Policy{Kind: failure.FailClosed, Requeue: failure.Never, Event: failure.EventFailedClosed, Level: slog.LevelError}, "rebuild state: no spec"},
		"the state is over its budget": {stateCM(t, cur), nil, func(*state.State) (*state.State, error) { return tooLarge, nil },
			failure.Policy{Kind: failure.FailClosed, Requeue: failure.Never, Event: failure.EventFailedClosed, Level: slog.LevelError}, "over the budget"},
		"the update fails": {stateCM(t, cur), fails("update", apierrors.NewInternalError(gone)), nil,
			failure.Policy{Kind: failure.Transient, Requeue: failure.Backoff, Event: failure.EventStateWriteFailed, Level: slog.LevelWarn}, "etcd is gone"},
		"the create fails": {nil, fails("create", apierrors.NewInternalError(gone)), nil,
			failure.Policy{Kind: failure.Transient, Requeue: failure.Backoff, Event: failure.EventStateWriteFailed, Level: slog.LevelWarn}, "etcd is gone"},
		"every update conflicts": {stateCM(t, cur), fails("update", apierrors.NewConflict(corev1.Resource("configmaps"), "web-state", gone)), nil,
			failure.Policy{Kind: failure.Conflict, Requeue: failure.Soon, Level: slog.LevelInfo}, "etcd is gone"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var live []runtime.Object
			if c.live != nil {
				live = append(live, c.live)
			}
			f := newFakeAgent(t, live)
			if c.reactor != nil {
				f.kube.PrependReactor("*", "configmaps", c.reactor)
			}
			decide := c.decide
			if decide == nil {
				decide = func(*state.State) (*state.State, error) { return next, nil }
			}
			store, trace := f.stateStore("web")
			_, _, err := store.UpdateCM(context.Background(), trace.decide(func(_ map[string]string, cur *state.State) (statestore.Edit, error) {
				n, err := decide(cur)
				return statestore.Edit{Next: n}, err
			}))
			if err == nil {
				t.Fatal("no error")
			}
			err = trace.failure(err, "state ConfigMap argocd/web-state")
			if got := failure.PolicyOf(err); got != c.want || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %+v %q, want %+v saying %q", got, err, c.want, c.says)
			}
		})
	}
}
