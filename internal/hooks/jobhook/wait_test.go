package jobhook

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// TestWaitJobRetriesTransientErrors: while waiting, a failed read is retried until the
// hook's timeout, except NotFound, Forbidden and another UID under the name.
func TestWaitJobRetriesTransientErrors(t *testing.T) {
	jobs := schema.GroupResource{Group: "batch", Resource: "jobs"}
	for _, tc := range []struct {
		name    string
		err     error // what the reads after the create answer
		replace bool  // the Job is replaced by another UID
		want    hooks.Outcome
		msg     string
	}{
		{"transient then complete", apierrors.NewServiceUnavailable("restarting"), false, hooks.Succeeded, "Complete"},
		{"timeouts then complete", apierrors.NewTimeoutError("slow", 1), false, hooks.Succeeded, "Complete"},
		{"plain error then complete", errors.New("connection refused"), false, hooks.Succeeded, "Complete"},
		{"not found", apierrors.NewNotFound(jobs, "j"), false, hooks.Errored, "deleted before its outcome"},
		{"forbidden", apierrors.NewForbidden(jobs, "j", errors.New("no")), false, hooks.Errored, "forbidden"},
		{"replaced", nil, true, hooks.Errored, "replaced by another"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeClusters()
			reads := 0
			f.control.PrependReactor("get", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
				reads++
				switch {
				case reads == 1:
					return false, nil, nil // ensureJob's read: none yet
				case tc.replace:
					return true, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", UID: "other"}}, nil
				case reads < 5:
					return true, nil, tc.err
				case apierrors.IsNotFound(tc.err) || apierrors.IsForbidden(tc.err):
					return true, nil, tc.err
				}
				job, err := f.control.Tracker().Get(a.GetResource(), "argocd", a.(k8stesting.GetAction).GetName())
				if err == nil {
					job.(*batchv1.Job).Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
				}
				return true, job, err
			})
			res := jobRunner(f).Run(context.Background(), jobCall(""))
			if res.Outcome != tc.want || !strings.Contains(res.Message, tc.msg) {
				t.Fatalf("got %+v after %d reads", res, reads)
			}
		})
	}
	f := newFakeClusters()
	f.control.PrependReactor("get", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if _, err := f.control.Tracker().Get(a.GetResource(), "argocd", a.(k8stesting.GetAction).GetName()); err != nil {
			return false, nil, nil
		}
		return true, nil, apierrors.NewServiceUnavailable("restarting")
	})
	c := jobCall("")
	c.Hook.Timeout = 50 * time.Millisecond
	if res := jobRunner(f).Run(context.Background(), c); res.Outcome != hooks.Errored || !strings.Contains(res.Message, "timed out") || !strings.Contains(res.Message, "restarting") {
		t.Fatalf("until the timeout: %+v", res)
	}
}

// TestJobAdoptsAnUnfinishedEarlierAttempt: an attempt finding the Job of an earlier
// attempt of its run still running waits for that Job rather than killing it; a finished
// one is replaced whatever the policy (a retry makes a new Job).
func TestJobAdoptsAnUnfinishedEarlierAttempt(t *testing.T) {
	for _, tc := range []struct {
		name     string
		finished bool
		policy   string
		creates  int
	}{
		{"running, adopted", false, BeforeHookCreation, 0},
		{"running, adopted without before creation", false, HookSucceeded, 0},
		{"finished, replaced", true, BeforeHookCreation, 1},
		{"finished, replaced without before creation", true, HookSucceeded, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeClusters()
			c := jobCall(tc.policy)
			c.Attempt = 1
			job := mustBuildJob(t, c, "argocd", "default")
			job.UID = "first"
			if tc.finished {
				job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"}}
			}
			if _, err := f.control.BatchV1().Jobs("argocd").Create(context.Background(), job, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			f.control.ClearActions()
			ending(f.control, batchv1.JobComplete, "")
			if !tc.finished { // the first attempt's Job ends while the second waits
				go func() {
					time.Sleep(20 * time.Millisecond)
					job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
					_ = f.control.Tracker().Update(batchv1.SchemeGroupVersion.WithResource("jobs"), job, "argocd")
				}()
			}
			c.Attempt = 2
			res := jobRunner(f).Run(context.Background(), c)
			got, err := f.control.BatchV1().Jobs("argocd").Get(context.Background(), JobName(c), metav1.GetOptions{})
			if res.Outcome != hooks.Succeeded || creates(f.control) != tc.creates || err != nil {
				t.Fatalf("got %+v, %d creates, %v", res, creates(f.control), err)
			}
			if wantRun := map[bool]string{false: "100000000000/1", true: "100000000000/2"}[tc.finished]; got.Annotations[contract.AnnotationJobRun] != wantRun {
				t.Fatalf("the Job is of run %s, want %s", got.Annotations[contract.AnnotationJobRun], wantRun)
			}
		})
	}
}
