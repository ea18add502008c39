package hookrun

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/hooks/jobhook"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestHookJobsAreDeletedOnceTheLedgerHasTheOutcome: what a run left to remove (here a job
// hook's Job, hooks.Cleanup) stays while the written ledger still says Running, goes once
// the ledger has the outcome (with its UID as precondition), and stays when the result is
// forgotten unrecorded.
func TestHookJobsAreDeletedOnceTheLedgerHasTheOutcome(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   state.HookStatus
		revision string // the written state's; another: the result is forgotten unrecorded
		deleted  bool
	}{
		{"running: kept", state.HookRunning, "r1", false},
		{"recorded: deleted", state.HookSucceeded, "r1", true},
		{"recorded failed: deleted", state.HookFailed, "r1", true},
		{"a new revision: kept", state.HookRunning, "r2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "web-migrate-1", Namespace: "argocd", UID: "u1"}}
			kube := fake.NewSimpleClientset(job)
			l := New(hooks.New(hooks.Limits{}).WithClusters(hooks.Clusters{Kube: kube, Namespace: "argocd"}), Options{})
			r := &state.Rollout{Revision: tc.revision, Phases: []state.PhaseState{{Name: "canary", Hooks: map[string]state.HookRun{"pre/migrate": {Status: tc.status}}}}}
			id := "web/r1/canary/pre/migrate"
			l.end("web", id, rollout.HookResult{Status: state.HookSucceeded}, &jobhook.JobRef{Namespace: "argocd", Name: job.Name, UID: job.UID})
			l.Settle(context.Background(), "web", &state.State{Rollout: r})
			_, err := kube.BatchV1().Jobs("argocd").Get(context.Background(), job.Name, metav1.GetOptions{})
			if (err != nil) != tc.deleted {
				t.Fatalf("deleted: %v, want %v", err != nil, tc.deleted)
			}
			_, kept := l.cleanups[id]
			if kept != (tc.status == state.HookRunning && tc.revision == "r1") {
				t.Fatalf("the Job is still remembered: %v", kept)
			}
			if _, waits := l.results["web"][id]; waits != kept {
				t.Fatalf("the result is kept (%v) exactly while it waits for the ledger", waits)
			}
		})
	}
}
