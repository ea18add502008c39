package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/agent/failure"
)

// TestAFailureIsLoggedOnceAndToldByItsPolicy: work's failure path logs one line bound to
// the rollout, publishes the policy's Event on the rollout's parent and nothing else, and
// requeues as the policy says.
func TestAFailureIsLoggedOnceAndToldByItsPolicy(t *testing.T) {
	parent := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "web-parent", Namespace: testNS, UID: "u-1"}}
	cases := map[string]struct {
		key       string
		err       error
		event     string // "": none
		requeued  int    // the rate limiter's count after
		logsLevel string
	}{
		"transient":         {"web", apierrors.NewServiceUnavailable("down"), "", 1, "WARN"},
		"a failed write":    {"web", failure.WriteFailed(apierrors.NewInternalError(errors.New("etcd"))), "Warning StateWriteFailed", 1, "WARN"},
		"conflict":          {"web", apierrors.NewConflict(v1alpha1.SchemeGroupVersion.WithResource("applications").GroupResource(), "web-parent", errors.New("x")), "", 0, "INFO"},
		"invalid":           {"web", failure.InvalidInput(errors.New("plan argocd/web-plan is incomplete"), "let the parent re-render it"), "Warning InvalidInput plan argocd/web-plan is incomplete (fix: let the parent re-render it)", 0, "WARN"},
		"fail-closed":       {"web", failure.Closed(errors.New("rebuild state: no spec")), "Warning FailedClosed rebuild state: no spec", 0, "ERROR"},
		"no parent to tell": {"api", failure.Closed(errors.New("rebuild state: no spec")), "", 0, "ERROR"},
		"the inventory's":   {inventoryKey, apierrors.NewServiceUnavailable("down"), "", 1, "WARN"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFakeAgent(t, nil, planOf("web", "web-parent"), parent)
			f.fail(c.key, f.logFor(c.key), c.err)
			events := drain(f.events)
			if c.event == "" && len(events) != 0 || c.event != "" && (len(events) != 1 || !strings.HasPrefix(events[0], c.event)) {
				t.Fatalf("events %q, want %q", events, c.event)
			}
			lines := strings.Split(strings.TrimSpace(f.logs.String()), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], "level="+c.logsLevel) || !strings.Contains(lines[0], `msg="reconcile failed"`) {
				t.Fatalf("log %q", f.logs.String())
			}
			if c.key == "web" && !strings.Contains(lines[0], "rollout=web") {
				t.Fatalf("the line is not bound to the rollout: %s", lines[0])
			}
			if n := f.queue.NumRequeues(c.key); n != c.requeued {
				t.Fatalf("requeued %d times by the rate limiter, want %d", n, c.requeued)
			}
		})
	}
}
