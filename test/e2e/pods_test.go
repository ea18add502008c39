//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestJobsRunOnTheFakeNode: the stack runs Jobs for real — kube-scheduler places the pod on
// kwok's node, kwok ends it, the Job controller of kube-controller-manager writes the Job's
// conditions — so Job hooks are tested without a fake Job status.
func TestJobsRunOnTheFakeNode(t *testing.T) {
	t.Parallel()
	env.Pods(t)
	ctx := context.Background()
	for name, fail := range map[string]bool{"job-succeeds": false, "job-fails": true} {
		job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: framework.ArgoNamespace}, Spec: batchv1.JobSpec{
			BackoffLimit: new(int32(0)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{framework.KwokFailAnnotation: map[bool]string{true: "true", false: "false"}[fail]}},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "main", Image: "example.invalid/hook:1"}}},
			}}}
		if _, err := env.Kube.BatchV1().Jobs(framework.ArgoNamespace).Create(ctx, job, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		want := map[bool]batchv1.JobConditionType{false: batchv1.JobComplete, true: batchv1.JobFailed}[fail]
		env.WaitFor(t, 2*time.Minute, name+" ends "+string(want), func(ctx context.Context) (bool, string) {
			j, err := env.Kube.BatchV1().Jobs(framework.ArgoNamespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			for _, c := range j.Status.Conditions {
				if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) {
					return c.Type == want, string(c.Type)
				}
			}
			return false, "running; pods: " + podsOf(ctx, name)
		})
	}
}

// podsOf says where a Job's pods are: name, node, phase.
func podsOf(ctx context.Context, job string) string {
	pods, err := env.Kube.CoreV1().Pods(framework.ArgoNamespace).List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + job})
	if err != nil {
		return err.Error()
	}
	out := fmt.Sprint(len(pods.Items))
	for _, p := range pods.Items {
		out += fmt.Sprintf(" %s@%q:%s", p.Name, p.Spec.NodeName, p.Status.Phase)
	}
	return out
}
