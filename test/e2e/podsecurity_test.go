//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// jobNamespace is the namespace manifests/job-namespace makes.
const jobNamespace = "cmp-phase-jobs"

// applyJobNamespace applies `kubectl apply -k manifests/job-namespace` to the real API
// server (server-side apply: the serviceaccount controller may have made its default
// ServiceAccount first), and deletes the namespace at the end.
func applyJobNamespace(ctx context.Context, t *testing.T) {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join("..", "..", "manifests", "job-namespace"))
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]string{"Namespace": "namespaces", "ServiceAccount": "serviceaccounts", "Role": "roles", "RoleBinding": "rolebindings"}
	for _, r := range m.Resources() {
		gv, _ := schema.ParseGroupVersion(r.GetApiVersion())
		body, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		force := true
		_, err = env.Dynamic.Resource(gv.WithResource(res[r.GetKind()])).Namespace(r.GetNamespace()).Patch(ctx, r.GetName(), types.ApplyPatchType, body,
			metav1.PatchOptions{FieldManager: "e2e-kubectl", Force: &force})
		if err != nil {
			t.Fatalf("apply %s %s: %v", r.GetKind(), r.GetName(), err)
		}
	}
	t.Cleanup(func() {
		_ = env.Kube.CoreV1().Namespaces().Delete(context.Background(), jobNamespace, metav1.DeleteOptions{})
	})
}

// TestPerPhaseJobsRunInTheRestrictedNamespace (issue 31, item 3): manifests/job-namespace
// on the real kube-apiserver (its PodSecurity admission on, as by default) is a wall of its
// own — a pod breaking `restricted` made there directly is refused, while the same pod is
// admitted in the unlabelled argocd namespace — and binds the agent only what job hooks
// need there (SubjectAccessReview). An agent with --job-namespace cmp-phase-jobs runs each
// phase's per-phase pre-hook Job there (no job.namespace in the spec), the real Job
// controller's pods are admitted and kwok completes them, and no Job is made in argocd.
func TestPerPhaseJobsRunInTheRestrictedNamespace(t *testing.T) {
	env.Pods(t)
	t.Parallel()
	ctx := context.Background()
	applyJobNamespace(ctx, t)
	theWallHolds(ctx, t)
	agentMayOnlyRunJobsIn(ctx, t, jobNamespace)

	r := newPhased(t, "psajob", "stop")
	if _, err := env.Kube.CoreV1().Secrets(jobNamespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "token-" + r.name,
		Labels: map[string]string{contract.LabelHookSecret: "true"}}, StringData: map[string]string{"token": "sekret-psajob-7f3a9c"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	block := fmt.Sprintf(`        preHooks:
        - name: migrate
          type: job
          timeout: 3m
          job:
            spec:
              backoffLimit: 0
              template:
                spec:
                  containers:
                  - name: migrate
                    image: busybox
                    args: [migrate]
                    env:
                    - name: DB_PASSWORD
                      valueFrom:
                        secretKeyRef: {name: token-%s, key: token}
`, r.name)
	spec := twoPhaseSpec(r.name, block, block)
	if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": spec,
		r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
		t.Fatal(err)
	}
	rev, _ := revisionOf(t, spec)
	defer r.agent("agent-"+r.name, nil, "--job-namespace", jobNamespace).Stop(5 * time.Second)
	newParent(ctx, t, r.name, r.name+"/app", 0)
	r.until("the rollout completes through its pre-hook Jobs in "+jobNamespace, rev, rollout.StatusCompleted, everywhere("v1"))

	st, _ := r.state(ctx)
	for i := range st.Rollout.Phases {
		if run := st.Rollout.Phases[i].Hooks["pre/migrate"]; run.Status != state.HookSucceeded || !strings.Contains(run.Message, "Job "+jobNamespace+"/") {
			t.Errorf("phase %d's pre-hook: %+v", i, run)
		}
	}
	sel := contract.LabelJobRollout + "=" + r.name
	jobs, err := env.Kube.BatchV1().Jobs(jobNamespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil || len(jobs.Items) != 2 {
		t.Fatalf("want the two phases' Jobs in %s: %v %v", jobNamespace, jobs, err)
	}
	for _, j := range jobs.Items {
		if !jobComplete(j) {
			t.Errorf("Job %s: %+v", j.Name, j.Status)
		}
	}
	pods, err := env.Kube.CoreV1().Pods(jobNamespace).List(ctx, metav1.ListOptions{LabelSelector: contract.LabelJobRollout + "=" + r.name})
	if err != nil || len(pods.Items) < 2 {
		t.Fatalf("the Jobs' pods, admitted in %s: %v %v", jobNamespace, pods, err)
	}
	if n := len(hookJobs(ctx, t, r.name, "migrate")); n != 0 {
		t.Fatalf("%d Jobs in %s", n, framework.ArgoNamespace)
	}
}

func jobComplete(j batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// theWallHolds: the API server refuses, in the job namespace, a pod that breaks the
// restricted profile (as the agent never builds one), and admits it in argocd (dry run).
func theWallHolds(ctx context.Context, t *testing.T) {
	t.Helper()
	pod := func(ns string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "escalates", Namespace: ns}, Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "example.invalid/root:1", SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: new(true)}}},
		}}
	}
	_, err := env.Kube.CoreV1().Pods(jobNamespace).Create(ctx, pod(jobNamespace), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `violates PodSecurity "restricted:latest"`) {
		t.Fatalf("a pod breaking restricted in %s: %v, want refused by PodSecurity", jobNamespace, err)
	}
	if _, err := env.Kube.CoreV1().Pods(framework.ArgoNamespace).Create(ctx, pod(framework.ArgoNamespace), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatalf("the same pod in unlabelled %s (dry run): %v", framework.ArgoNamespace, err)
	}
}

// agentMayOnlyRunJobsIn asks the API server (SubjectAccessReview) what the agent's
// ServiceAccount may do in ns through the job namespace's Role.
func agentMayOnlyRunJobsIn(ctx context.Context, t *testing.T, ns string) {
	t.Helper()
	for _, a := range []struct {
		verb, group, resource string
		allowed               bool
	}{
		{"create", "batch", "jobs", true}, {"get", "batch", "jobs", true}, {"delete", "batch", "jobs", true},
		{"list", "", "pods", true}, {"get", "", "pods/log", true}, {"get", "", "secrets", true},
		{"update", "batch", "jobs", false}, {"list", "batch", "jobs", false}, {"create", "", "pods", false}, {"get", "", "pods", false},
		{"create", "", "pods/exec", false}, {"list", "", "secrets", false}, {"create", "", "secrets", false}, {"get", "", "configmaps", false},
		{"create", "", "serviceaccounts/token", false}, {"create", "rbac.authorization.k8s.io", "rolebindings", false},
	} {
		resource, sub, _ := strings.Cut(a.resource, "/")
		sar := &authv1.SubjectAccessReview{Spec: authv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:" + framework.ArgoNamespace + ":cmp-phase-agent",
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + framework.ArgoNamespace, "system:authenticated"},
			ResourceAttributes: &authv1.ResourceAttributes{Verb: a.verb, Group: a.group, Resource: resource, Subresource: sub, Namespace: ns},
		}}
		got, err := env.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.Allowed != a.allowed {
			t.Errorf("cmp-phase-agent %s %s/%s in %s: allowed=%v, want %v", a.verb, a.group, a.resource, ns, got.Status.Allowed, a.allowed)
		}
	}
}
