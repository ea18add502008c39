package jobhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// The tail of a finished Job's pod log read for its message: at most podLogLines lines and
// podLogBytes bytes, within podLogTimeout (listing the pods, reading the Secrets and the
// log together); the tail takes what the message has left (Limits.MaxMessage).
const (
	podLogLines   = 10
	podLogBytes   = 16 << 10
	podLogTimeout = 5 * time.Second
	podLogMin     = 64 // fewer bytes left in the message: no tail
)

// errNoPod: the Job has no pod to read (deleted with it, or never made).
var errNoPod = errors.New("no pod")

// podLogNote is what a finished Job's message says of its pod's log, in at most max bytes:
// "; last lines of its pod's log: <tail>" redacted of every value of the Secrets the pod references,
// or why it is not there, "(pod log unavailable: <reason>)" or "(pod log withheld: <reason>)".
// It reads within podLogTimeout of its own (after a Job ended at the hook's timeout too) and
// never changes the run's outcome.
func podLogNote(ctx context.Context, kube kubernetes.Interface, job *batchv1.Job, max int) string {
	if max < podLogMin {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), podLogTimeout)
	defer cancel()
	pod, err := lastPod(ctx, kube, job)
	if err != nil {
		return fmt.Sprintf(" (pod log unavailable: %s)", logErr(ctx, err))
	}
	values, err := secretValues(ctx, kube, pod)
	if err != nil {
		return fmt.Sprintf(" (pod log withheld: %s)", err)
	}
	raw, cut, err := readTail(ctx, kube, pod)
	if err != nil {
		return fmt.Sprintf(" (pod log unavailable: %s)", logErr(ctx, err))
	}
	const lead = "; last lines of its pod's log: "
	tail, err := redactLog(raw, values, cut, max-len(lead))
	switch {
	case err != nil:
		return fmt.Sprintf(" (pod log withheld: %s)", err)
	case tail == "":
		return "; its pod's log is empty"
	}
	return lead + tail
}

// lastPod is the Job's newest pod (its last attempt): by the job-name label in the Job's
// namespace (batch.kubernetes.io/job-name, else the legacy job-name of clusters before
// Kubernetes 1.27), the Job's own (its UID as controller) when the Job has a UID.
func lastPod(ctx context.Context, kube kubernetes.Interface, job *batchv1.Job) (*corev1.Pod, error) {
	var pods []corev1.Pod
	for _, label := range []string{batchv1.JobNameLabel, contract.LabelLegacyJobName} {
		sel := labels.SelectorFromSet(labels.Set{label: job.Name}).String()
		list, err := kube.CoreV1().Pods(job.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return nil, err
		}
		if pods = list.Items; len(pods) > 0 {
			break
		}
	}
	pods = slices.DeleteFunc(pods, func(p corev1.Pod) bool {
		owner := metav1.GetControllerOf(&p)
		return job.UID != "" && (owner == nil || owner.UID != job.UID)
	})
	if len(pods) == 0 {
		return nil, errNoPod
	}
	newest := slices.MaxFunc(pods, func(a, b corev1.Pod) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return &newest, nil
}

// readTail reads the last podLogLines lines of the pod's first container, at most
// podLogBytes bytes (read one more to tell a cut, should a server ignore the limit).
func readTail(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod) (string, bool, error) {
	if len(pod.Spec.Containers) == 0 {
		return "", false, errors.New("the pod has no container")
	}
	lines, limit := int64(podLogLines), int64(podLogBytes)
	opts := &corev1.PodLogOptions{Container: pod.Spec.Containers[0].Name, TailLines: &lines, LimitBytes: &limit}
	stream, err := kube.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, opts).Stream(ctx)
	if err != nil {
		return "", false, err
	}
	defer func() { _ = stream.Close() }()
	b, err := io.ReadAll(io.LimitReader(stream, limit+1))
	if err != nil {
		return "", false, err
	}
	if int64(len(b)) > limit {
		b = b[:limit]
	}
	return string(b), int64(len(b)) >= limit, nil
}

// logErr is the short reason a log could not be read: never the API server's whole answer.
func logErr(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, errNoPod):
		return "no pod"
	case ctx.Err() == nil && apierrors.IsForbidden(err):
		return "forbidden (the agent needs list pods and get pods/log in the Job's namespace)"
	case ctx.Err() == nil && apierrors.IsNotFound(err):
		return "the pod is gone"
	}
	return shortErr(ctx, err)
}

// shortErr is err in a few words: timed out, not found, forbidden, else its text cut to
// 120 bytes.
func shortErr(ctx context.Context, err error) string {
	switch {
	case ctx.Err() != nil:
		return "timed out"
	case apierrors.IsNotFound(err):
		return "not found"
	case apierrors.IsForbidden(err):
		return "forbidden"
	}
	return hooks.Cut(err.Error(), 120)
}
