package jobhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	batchclient "k8s.io/client-go/kubernetes/typed/batch/v1"
)

// ensureJob is the run's Job: the one already there when this run made it (a restarted or
// new agent adopts it) or an earlier attempt of this run left it unfinished (adopted, not
// killed); an earlier attempt's finished Job is replaced (a retry makes a new Job); an
// earlier run's Job is replaced only under BeforeHookCreation.
func ensureJob(ctx context.Context, jobs batchclient.JobInterface, want *batchv1.Job, h *Block, poll time.Duration) (*batchv1.Job, error) {
	where := want.Namespace + "/" + want.Name
	cur, err := jobs.Get(ctx, want.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, fmt.Errorf("reading Job %s: %w", where, err)
	case sameRun(cur, want):
		return cur, nil
	case earlierAttempt(cur, want) && !ended(cur):
		return cur, nil
	case !earlierAttempt(cur, want) && !h.Deletes(BeforeHookCreation):
		return nil, fmt.Errorf("Job %s from an earlier run exists and hookDeletePolicy has no BeforeHookCreation (fix: delete the Job, or add BeforeHookCreation)", where)
	default:
		if err := deleteJob(ctx, jobs, cur); err != nil {
			return nil, fmt.Errorf("deleting the earlier Job %s: %w", where, err)
		}
		if err := waitGone(ctx, jobs, want.Name, poll); err != nil {
			return nil, fmt.Errorf("waiting for the earlier Job %s to go: %w", where, err)
		}
	}
	made, err := jobs.Create(ctx, want, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) { // another agent made it between our read and create
		if cur, err = jobs.Get(ctx, want.Name, metav1.GetOptions{}); err == nil && sameRun(cur, want) {
			return cur, nil
		}
		return nil, fmt.Errorf("creating Job %s: another run's Job of that name appeared", where)
	}
	if err != nil {
		return nil, fmt.Errorf("creating Job %s: %w", where, err)
	}
	return made, nil
}

func ended(job *batchv1.Job) bool {
	done, _, _ := jobEnded(job)
	return done
}

// waitJob polls the Job until it has an outcome or ctx ends. A failed read is retried
// (an API server restarting, a timeout, throttling) unless it says the Job is gone or
// we may not read it; a Job of another UID under the name is not ours.
func waitJob(ctx context.Context, jobs batchclient.JobInterface, job *batchv1.Job, poll time.Duration) (*batchv1.Job, error) {
	var last error
	for {
		if ended(job) {
			return job, nil
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return nil, fmt.Errorf("no outcome yet, the Job is left running (last read: %v): %w", last, ctx.Err())
			}
			return nil, fmt.Errorf("no outcome yet, the Job is left running: %w", ctx.Err())
		case <-time.After(poll):
		}
		next, err := jobs.Get(ctx, job.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("it was deleted before its outcome: %w", err)
		case apierrors.IsForbidden(err):
			return nil, fmt.Errorf("reading it: %w", err)
		case err != nil:
			last = err
			continue
		case next.UID != job.UID:
			return nil, errors.New("it was replaced by another")
		}
		job, last = next, nil
	}
}

// waitGone polls until the Job named name is gone or ctx ends.
func waitGone(ctx context.Context, jobs batchclient.JobInterface, name string, poll time.Duration) error {
	for {
		_, err := jobs.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}
