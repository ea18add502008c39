package jobhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	batchclient "k8s.io/client-go/kubernetes/typed/batch/v1"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// clients reach the clusters job hooks run in: the control cluster for a per-phase hook,
// the run's cluster for a per-cluster one (newClients, from the runner's hooks.Clusters).
type clients interface {
	// Control is the control cluster (where Argo CD and the agent run) and the agent's
	// namespace.
	Control() (kubernetes.Interface, string)
	// Cluster is a client of t's cluster, made for this call only, once t.Project permits a
	// Job in t's server and namespace, and the objects of reads there; an error names the
	// cluster, the field and the fix, never a credential.
	Cluster(ctx context.Context, t hooks.Target, reads ...objectRef) (kubernetes.Interface, error)
}

// JobRef is a Job a run made, to delete once the ledger has recorded the run's outcome
// (hookDeletePolicy HookSucceeded / HookFailed): deleting it earlier would let a new
// leader, finding no outcome in the ledger and no Job, run the hook again.
type JobRef struct {
	Namespace, Name string
	UID             types.UID
	Target          *hooks.Target // the cluster of a per-cluster run's Job; nil: the control cluster
}

// jobCleanup bounds deleting a Job after its outcome was recorded.
const jobCleanup = 10 * time.Second

// kind is `type: job` whole: its spec half (specHalf) and its run half, a Kubernetes Job.
type kind struct{ spec.HookKind }

// Kind is `type: job`, as internal/hooks/all registers it.
var Kind hooks.Kind = kind{specHalf}

// Reach is nothing the per-host cap counts: the Job runs in a cluster Argo CD reaches.
func (kind) Reach(spec.HookBlock) hooks.Reach { return hooks.Reach{} }

// ReadsChild: a per-cluster run's Job goes to the child's cluster, into its destination
// namespace, as its AppProject permits (hooks.ChildReader).
func (kind) ReadsChild() bool { return true }

// Run creates the call's Job (or adopts the one an earlier agent or attempt created for the
// same run) once every Secret it references is labelled for hooks, and waits for its
// Complete (Succeeded) or Failed (Failed) condition; anything that keeps us from creating
// it or telling its outcome is Errored. Once it ended, the message carries the last lines
// of its newest pod's log, redacted of the Secrets the pod references (podLogNote); a log
// that cannot be read is said so and changes nothing. It deletes nothing after the outcome: the Result
// names the Job to delete (Cleanup) once the ledger has the outcome.
func (kind) Run(ctx context.Context, r *hooks.Runner, c hooks.Call) hooks.Result {
	h, ok := c.Hook.Block.(*Block)
	if !ok {
		return hooks.NoBlock(c)
	}
	o := options(r)
	if o.clients == nil {
		return hooks.Result{Outcome: hooks.Errored, Message: "job hooks are not enabled in this runner (no cluster client)"}
	}
	kube, ns, target, err := jobCluster(ctx, o, c, h)
	if err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: err.Error()}
	}
	if h, err = withWorkloadPod(ctx, kube, ns, target, h); err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: inCluster(target, err)}
	}
	if err := checkSecretRefs(ctx, kube, ns, &h.Spec.Template.Spec); err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: inCluster(target, err)}
	}
	want, err := buildJob(c, h, ns, o.ServiceAccount, r.Limits().Caps.JobLabels)
	if err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: err.Error()}
	}
	jobs := kube.BatchV1().Jobs(ns)
	job, err := ensureJob(ctx, jobs, want, h, o.Poll)
	if err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: inCluster(target, err)}
	}
	where := ns + "/" + job.Name
	if target != nil {
		where += " in cluster " + target.Cluster
	}
	job, err = waitJob(ctx, jobs, job, o.Poll)
	if err != nil {
		return hooks.Result{Outcome: hooks.Errored, Message: fmt.Sprintf("Job %s: %s", where, hooks.DescribeErr(ctx, err))}
	}
	_, succeeded, why := jobEnded(job)
	res := hooks.Result{Outcome: hooks.Succeeded, Message: fmt.Sprintf("Job %s Complete", where)}
	if !succeeded {
		res = hooks.Result{Outcome: hooks.Failed, Message: fmt.Sprintf("Job %s Failed (%s)", where, why)}
	}
	hint := fmt.Sprintf(" (its pod's log: kubectl logs -n %s job/%s)", ns, job.Name)
	res.Message += podLogNote(ctx, kube, job, r.Limits().MaxMessage-len(res.Message)-len(hint)) + hint
	if (succeeded && h.Deletes(HookSucceeded)) || (!succeeded && h.Deletes(HookFailed)) {
		res.Cleanup = &JobRef{Namespace: ns, Name: job.Name, UID: job.UID, Target: target}
	}
	return res
}

// Describe names the Job for the agent's log.
func (ref *JobRef) Describe() (string, []any) {
	return "hook job", []any{"namespace", ref.Namespace, "job", ref.Name}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Clean deletes the Job ref names (that one: its UID) and, in the background, its pods,
// within a short deadline of its own (hooks.Cleanup). The agent calls it once the ledger
// has recorded the outcome of the run that made it; a Job already gone or replaced is left
// alone.
func (ref *JobRef) Clean(ctx context.Context, r *hooks.Runner) error {
	cl := options(r).clients
	if cl == nil {
		return errors.New("job hooks are not enabled in this runner")
	}
	kube, err := refClient(ctx, cl, *ref)
	if err != nil {
		return err
	}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: ref.Name, UID: ref.UID}}
	err = deleteJob(ctx, kube.BatchV1().Jobs(ref.Namespace), job)
	if apierrors.IsConflict(err) {
		return nil // another Job of that name now: not ours to delete
	}
	return err
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
