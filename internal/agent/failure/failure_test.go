package failure

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestPolicyOf is the mapper's table: each kind of failure, also wrapped, to its requeue,
// its Event and its log level.
func TestPolicyOf(t *testing.T) {
	cm := schema.GroupResource{Resource: "configmaps"}
	cases := map[string]struct {
		err  error
		want Policy
	}{
		"the API server unavailable": {apierrors.NewServiceUnavailable("etcd is down"),
			Policy{Kind: Transient, Requeue: Backoff, Level: slog.LevelWarn}},
		"a server timeout": {apierrors.NewServerTimeout(cm, "get", 2),
			Policy{Kind: Transient, Requeue: Backoff, Level: slog.LevelWarn}},
		"throttled": {apierrors.NewTooManyRequests("slow down", 1),
			Policy{Kind: Transient, Requeue: Backoff, Level: slog.LevelWarn}},
		"a connection reset": {fmt.Errorf("read plan: %w", &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}),
			Policy{Kind: Transient, Requeue: Backoff, Level: slog.LevelWarn}},
		"a deadline": {context.DeadlineExceeded,
			Policy{Kind: Transient, Requeue: Backoff, Level: slog.LevelWarn}},
		"an error of no kind": {errors.New("the cluster inventory is not published yet"),
			Policy{Kind: Transient, Requeue: Backoff, Level: slog.LevelWarn}},
		"a conflict": {fmt.Errorf("set PHASE_GEN: %w", apierrors.NewConflict(cm, "web-state", errors.New("changed"))),
			Policy{Kind: Conflict, Requeue: Soon, Level: slog.LevelInfo}},
		"a state write refused by the API server": {WriteFailed(apierrors.NewInternalError(errors.New("etcd"))),
			Policy{Kind: Transient, Requeue: Backoff, Event: EventStateWriteFailed, Level: slog.LevelWarn}},
		"a state write that met a conflict": {WriteFailed(apierrors.NewConflict(cm, "web-state", errors.New("changed"))),
			Policy{Kind: Conflict, Requeue: Soon, Level: slog.LevelInfo}},
		"a plan the agent cannot use": {fmt.Errorf("reconcile: %w", InvalidInput(errors.New("plan argocd/web-plan: bad"), "re-render it")),
			Policy{Kind: Invalid, Requeue: Slowly, Event: EventInvalidInput, Level: slog.LevelWarn}},
		"the engine refused": {fmt.Errorf("update state: %w", Closed(errors.New("rebuild state: no spec"))),
			Policy{Kind: FailClosed, Requeue: Never, Event: EventFailedClosed, Level: slog.LevelError}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := PolicyOf(c.err); got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestAnInvalidInputSaysItsFixOnce: the fix is added unless the error says one already.
func TestAnInvalidInputSaysItsFixOnce(t *testing.T) {
	if got := InvalidInput(errors.New("plan argocd/web-plan: bad phases"), "re-render it").Error(); got != "plan argocd/web-plan: bad phases (fix: re-render it)" {
		t.Fatal(got)
	}
	if got := InvalidInput(errors.New("schema 9 (fix: upgrade cmp-phase)"), "re-render it").Error(); strings.Count(got, "fix:") != 1 {
		t.Fatal(got)
	}
}
