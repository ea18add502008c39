package hooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	batchclient "k8s.io/client-go/kubernetes/typed/batch/v1"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// JobClients reach the clusters job hooks run in. The agent's implementation reads a
// cluster's credentials from Argo CD's cluster Secret when asked, and keeps none.
type JobClients interface {
	// Control is the control cluster (where Argo CD and the agent run) and the agent's
	// namespace, for a per-phase job hook.
	Control() (kubernetes.Interface, string)
	// Cluster is a client of the cluster whose API server is server, for a per-cluster one.
	Cluster(ctx context.Context, server string) (kubernetes.Interface, error)
}

// Job hook settings that are not the spec's.
const (
	defaultClusterNamespace = "default" // a per-cluster Job's namespace unless the hook names one
	jobLogLines             = 20        // the last lines of the pod's log told in a result
	jobLogBytes             = 4 << 10
	jobCleanup              = 10 * time.Second // deleting a Job after its outcome
)

// jobKind runs `type: job` hooks.
type jobKind struct{ spec.HookKind }

// Reach is nothing the per-host cap counts: the Job runs in a cluster.
func (jobKind) Reach(spec.HookBlock) Reach { return Reach{} }

// Run creates the call's Job (or adopts the one an earlier agent created for the same run)
// and waits for its Complete (Succeeded) or Failed (Failed) condition; anything that keeps
// us from creating it or telling its outcome is Errored. The pod's last log lines are in
// the message. hookDeletePolicy deletes an earlier run's Job before creating and this one
// after its outcome.
func (jobKind) Run(ctx context.Context, r *Runner, c Call) Result {
	h, ok := c.Hook.Block.(*spec.JobHook)
	if !ok {
		return noBlock(c)
	}
	if r.jobs == nil {
		return Result{Outcome: Errored, Message: "job hooks are not enabled in this runner (no cluster client)"}
	}
	kube, ns, err := r.jobTarget(ctx, c, h)
	if err != nil {
		return Result{Outcome: Errored, Message: err.Error()}
	}
	jobs := kube.BatchV1().Jobs(ns)
	job, err := ensureJob(ctx, jobs, buildJob(c, h, ns), h, r.jobPoll)
	if err != nil {
		return Result{Outcome: Errored, Message: err.Error()}
	}
	where := ns + "/" + job.Name
	job, err = waitJob(ctx, jobs, job, r.jobPoll)
	if err != nil {
		return Result{Outcome: Errored, Message: fmt.Sprintf("Job %s: %s", where, describeErr(ctx, err))}
	}
	_, succeeded, why := jobEnded(job)
	res := Result{Outcome: Succeeded, Message: fmt.Sprintf("Job %s Complete", where)}
	if !succeeded {
		res = Result{Outcome: Failed, Message: fmt.Sprintf("Job %s Failed (%s)", where, why)}
	}
	res.Message += "; log: " + podLog(ctx, kube, ns, job.Name)
	if (succeeded && h.Deletes(spec.HookSucceeded)) || (!succeeded && h.Deletes(spec.HookFailed)) {
		if err := deleteJob(ctx, jobs, job); err != nil {
			res.Message = "deleting the Job: " + err.Error() + "; " + res.Message
		}
	}
	return res
}

// jobTarget is the client and namespace of c's Job: the control cluster's (the agent's
// namespace) for a per-phase hook, the cluster's ("default") for a per-cluster one, the
// hook's namespace when it names one.
func (r *Runner) jobTarget(ctx context.Context, c Call, h *spec.JobHook) (kubernetes.Interface, string, error) {
	if c.Cluster == "" {
		kube, ns := r.jobs.Control()
		return kube, cmpOr(h.Namespace, ns), nil
	}
	if c.Server == "" {
		return nil, "", fmt.Errorf("cluster of %s has no server in the inventory", c.Cluster)
	}
	kube, err := r.jobs.Cluster(ctx, c.Server)
	if err != nil {
		return nil, "", fmt.Errorf("client for %s: %w", c.Server, err)
	}
	return kube, cmpOr(h.Namespace, defaultClusterNamespace), nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ensureJob is the run's Job: the one already there when this run made it (a restarted or
// new agent adopts it), else want, created after deleting an earlier run's Job of the same
// name when the policy says BeforeHookCreation.
func ensureJob(ctx context.Context, jobs batchclient.JobInterface, want *batchv1.Job, h *spec.JobHook, poll time.Duration) (*batchv1.Job, error) {
	where := want.Namespace + "/" + want.Name
	cur, err := jobs.Get(ctx, want.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, fmt.Errorf("reading Job %s: %w", where, err)
	case sameRun(cur, want):
		return cur, nil
	case !h.Deletes(spec.BeforeHookCreation):
		return nil, fmt.Errorf("Job %s from an earlier run exists and hookDeletePolicy has no BeforeHookCreation (fix: delete the Job, or add BeforeHookCreation)", where)
	default:
		if err := deleteJob(ctx, jobs, cur); err != nil {
			return nil, fmt.Errorf("deleting the earlier run's Job %s (BeforeHookCreation): %w", where, err)
		}
		if err := waitGone(ctx, jobs, want.Name, poll); err != nil {
			return nil, fmt.Errorf("waiting for the earlier run's Job %s to go: %w", where, err)
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

// waitJob polls the Job until it has an outcome or ctx ends.
func waitJob(ctx context.Context, jobs batchclient.JobInterface, job *batchv1.Job, poll time.Duration) (*batchv1.Job, error) {
	for {
		if done, _, _ := jobEnded(job); done {
			return job, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no outcome yet, the Job is left running: %w", ctx.Err())
		case <-time.After(poll):
		}
		next, err := jobs.Get(ctx, job.Name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading it: %w", err)
		}
		if next.UID != job.UID {
			return nil, errors.New("it was replaced by another")
		}
		job = next
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

// deleteJob deletes the Job (that one: its UID) and, in the background, its pods; it has
// its own short deadline, so a hook whose timeout just ended still cleans up.
func deleteJob(ctx context.Context, jobs batchclient.JobInterface, job *batchv1.Job) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jobCleanup)
	defer cancel()
	bg := metav1.DeletePropagationBackground
	err := jobs.Delete(ctx, job.Name, metav1.DeleteOptions{PropagationPolicy: &bg, Preconditions: &metav1.Preconditions{UID: &job.UID}})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// podLog is the last lines of the Job's newest pod's log, capped; "no log" when there is
// none to read (no pod, no kubelet, as under kwok).
func podLog(ctx context.Context, kube kubernetes.Interface, ns, job string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jobCleanup)
	defer cancel()
	pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + job})
	if err != nil || len(pods.Items) == 0 {
		return "no log"
	}
	newest := slices.MaxFunc(pods.Items, func(a, b corev1.Pod) int {
		return a.CreationTimestamp.Compare(b.CreationTimestamp.Time)
	})
	lines, bytes := int64(jobLogLines), int64(jobLogBytes)
	b, err := kube.CoreV1().Pods(ns).GetLogs(newest.Name, &corev1.PodLogOptions{TailLines: &lines, LimitBytes: &bytes}).DoRaw(ctx)
	if s := strings.TrimSpace(string(b)); err == nil && s != "" {
		return s
	}
	return "no log"
}
