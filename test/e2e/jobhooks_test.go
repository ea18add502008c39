//go:build e2e

package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// kwokFail is the pod annotation under which env.Pods' kwok fails a pod (else it succeeds
// about a second after it starts).
const kwokFail = "kwok.cmp-phase.test/fail"

// jobHookedSpec is a 2-phase rollout (dev and staging, then prod, onFailure stop), each
// phase with a `migrate` pre-hook Job and a `smoke` check Job (seed 002's shape) whose pod
// reads a password from the Secret token-<name> by reference; prod's check fails when
// failProd, its container then printing what env.KwokLog wrote.
func jobHookedSpec(name string, failProd bool) string {
	block := func(fail bool) string {
		container := "smoke"
		if fail {
			container = framework.KwokLogContainer
		}
		return fmt.Sprintf(`        preHooks:
        - name: migrate
          type: job
          timeout: 3m
          job:
            spec:
              backoffLimit: 0
              ttlSecondsAfterFinished: 3600
              template:
                spec:
                  containers:
                  - name: migrate
                    image: busybox
                    command: [sh, -c, 'echo migrated']
                    env:
                    - name: DB_PASSWORD
                      valueFrom:
                        secretKeyRef: {name: token-%[1]s, key: token}
                  restartPolicy: Never
        checks:
        - name: smoke
          type: job
          timeout: 3m
          job:
            hookDeletePolicy: BeforeHookCreation
            spec:
              backoffLimit: 0
              activeDeadlineSeconds: 120
              template:
                metadata:
                  annotations:
                    %[2]s: "%[3]t"
                spec:
                  containers:
                  - name: %[4]s
                    image: busybox
                    env:
                    - name: DB_PASSWORD
                      valueFrom:
                        secretKeyRef: {name: token-%[1]s, key: token}
`, name, kwokFail, fail, container)
	}
	return twoPhaseSpec(name, block(false), block(failProd))
}

// hookJobs are the rollout's Jobs of hook, found by the labels the agent puts on them.
func hookJobs(ctx context.Context, t *testing.T, rollout, hook string) []batchv1.Job {
	t.Helper()
	sel := contract.LabelJobRollout + "=" + rollout + "," + contract.LabelJobHook + "=" + hook
	list, err := env.Kube.BatchV1().Jobs(framework.ArgoNamespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// phaseJobs are those of the phase's run (its idempotency key names the phase).
func phaseJobs(jobs []batchv1.Job, phase string) []batchv1.Job {
	var out []batchv1.Job
	for _, j := range jobs {
		if strings.Contains(j.Annotations[contract.AnnotationJobKey], "/"+phase+"/") {
			out = append(out, j)
		}
	}
	return out
}

// TestAFailingCheckJobAppliesOnFailure (issue 13 (a), and (c)): prod's check Job fails
// (its pod fails under kwok, backoffLimit 0), so the phase fails and onFailure: stop stops
// the rollout with the Job's failure as the reason; early's Jobs succeeded. The failed
// Job's pod prints the Secret it references (plain and in base64, through kwok's log
// server): the check's message carries the last lines of that log with both [redacted],
// and the value never shows in the state, the agent's log or Events.
func TestAFailingCheckJobAppliesOnFailure(t *testing.T) {
	env.Pods(t)
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "jobgate", "stop")
	secret := putJobSecret(ctx, t, r.name)
	encoded := base64.StdEncoding.EncodeToString([]byte(secret))
	env.KwokLog(t, "smoke: connecting", "smoke: DB_PASSWORD="+secret, "smoke: token "+encoded,
		"smoke: \x1b[31mFAILED\x1b[0m: connection refused")
	spec := jobHookedSpec(r.name, true)
	if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": spec,
		r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
		t.Fatal(err)
	}
	rev, _ := revisionOf(t, spec)
	defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
	newParent(ctx, t, r.name, r.name+"/app", 0)
	r.until("the rollout stops at prod's failed check Job", rev, rollout.StatusStopped, everywhere("v1"))
	st, _ := r.state(ctx)
	if !strings.Contains(st.Rollout.Reason, "check smoke Failed") || !strings.Contains(st.Rollout.Reason, "BackoffLimitExceeded") {
		t.Fatalf("the reason names the check and the Job's failure: %q", st.Rollout.Reason)
	}
	if run := st.Rollout.Phases[0].Hooks["check/smoke"]; run.Status != state.HookSucceeded || !strings.Contains(run.Message, "Complete") {
		t.Fatalf("early's check Job: %+v", run)
	}
	if n := len(phaseJobs(hookJobs(ctx, t, r.name, "smoke"), "prod")); n != 1 {
		t.Fatalf("prod's check made %d Jobs, want 1", n)
	}
	tail := "last lines of its pod's log: smoke: connecting | smoke: DB_PASSWORD=[redacted] | smoke: token [redacted] | smoke: FAILED: connection refused ("
	if run := st.Rollout.Phases[1].Hooks["check/smoke"]; run.Status != state.HookFailed || !strings.Contains(run.Message, tail) {
		t.Fatalf("prod's check Job carries its pod's redacted log: %+v", run)
	}
	r.neverShows(ctx, secret)
	r.neverShows(ctx, encoded)
}

// putJobSecret is putHookSecret's Secret labelled for job hooks (a Job may reference only
// such Secrets).
func putJobSecret(ctx context.Context, t *testing.T, name string) string {
	t.Helper()
	value := putHookSecret(ctx, t, name)
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, contract.LabelHookSecret)
	if _, err := env.Kube.CoreV1().Secrets(framework.ArgoNamespace).Patch(ctx, "token-"+name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	return value
}

// TestAJobHookRunsOnceAcrossCrashes (issue 13 (b), and (c)): the agent is killed while
// early's pre-hook Job runs; the next agent adopts that Job (the same UID, one Job for the
// run) instead of creating a second, and its success lets the rollout through.
func TestAJobHookRunsOnceAcrossCrashes(t *testing.T) {
	env.Pods(t)
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "jobcrash", "stop")
	secret := putJobSecret(ctx, t, r.name)
	spec := jobHookedSpec(r.name, false)
	if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": spec,
		r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
		t.Fatal(err)
	}
	rev, _ := revisionOf(t, spec)
	start := func(i int) *framework.Proc {
		return r.agent(fmt.Sprintf("agent-jobcrash-%d", i), nil, "--identity", "jobcrash")
	}
	first := start(0)
	newParent(ctx, t, r.name, r.name+"/app", 0)
	var uid string
	env.WaitFor(t, 2*time.Minute, "early's pre-hook Job is created", func(ctx context.Context) (bool, string) {
		jobs := phaseJobs(hookJobs(ctx, t, r.name, "migrate"), "early")
		if len(jobs) == 1 {
			uid = string(jobs[0].UID)
		}
		return len(jobs) == 1, fmt.Sprintf("%d Jobs", len(jobs))
	})
	first.Kill() // while the Job runs (its pod succeeds about a second after it starts)
	if st, err := r.state(ctx); err != nil || st.Rollout == nil || st.Rollout.Phases[0].Hooks["pre/migrate"].Status != state.HookRunning {
		t.Logf("the ledger already had the pre-hook's end before the kill: %v", err)
	}
	defer start(1).Stop(5 * time.Second)
	r.until("the rollout completes under the next agent", rev, rollout.StatusCompleted, everywhere("v1"))
	early := phaseJobs(hookJobs(ctx, t, r.name, "migrate"), "early")
	if len(early) != 1 || string(early[0].UID) != uid {
		t.Fatalf("early's pre-hook made %d Jobs (want the one, %s, adopted): %v", len(early), uid, early)
	}
	if n := len(phaseJobs(hookJobs(ctx, t, r.name, "migrate"), "prod")); n != 1 {
		t.Fatalf("prod's pre-hook made %d Jobs, want 1", n)
	}
	st, _ := r.state(ctx)
	if run := st.Rollout.Phases[0].Hooks["pre/migrate"]; run.Status != state.HookSucceeded || !strings.Contains(run.Message, "Complete") {
		t.Fatalf("early's pre-hook: %+v", run)
	}
	r.neverShows(ctx, secret, "agent-jobcrash-0", "agent-jobcrash-1")
}

// perClusterJobSpec is twoPhaseSpec with a `smoke` check Job per cluster (its arguments
// name the cluster) in each phase, in the child's destination namespace or jobNamespace;
// prod's pods fail under kwok; the children deploy under project.
func perClusterJobSpec(name, project, jobNamespace string) string {
	ns := ""
	if jobNamespace != "" {
		ns = "            namespace: '" + jobNamespace + "'\n"
	}
	block := func(fail bool) string {
		return fmt.Sprintf(`        checks:
        - name: smoke
          type: job
          timeout: 3m
          job:
%[3]s            spec:
              backoffLimit: 0
              activeDeadlineSeconds: 120
              template:
                metadata:
                  annotations:
                    %[1]s: "%[2]t"
                spec:
                  containers:
                  - name: smoke
                    image: busybox
                    args: [smoke, '{{name}}', '{{server}}']
`, framework.KwokFailAnnotation, fail, ns)
	}
	spec := twoPhaseSpec(name, block(false), block(true))
	return strings.Replace(spec, "      project: default\n", "      project: "+project+"\n", 1)
}

// clusterRuns are the per-cluster runs of hook in phase i of st, by child.
func clusterRuns(st *state.State, i int, hook string) map[string]state.HookRun {
	out := map[string]state.HookRun{}
	if st == nil || st.Rollout == nil || i >= len(st.Rollout.Phases) {
		return out
	}
	for _, run := range st.Rollout.Phases[i].Hooks {
		if run.Name == hook && run.Cluster != "" {
			out[run.Cluster] = run
		}
	}
	return out
}

// TestPerClusterJobChecksRunInTheirClusters (issue 13 point 1, per cluster): a check Job
// templated with the cluster runs once per admitted cluster, in that cluster (reached
// through its Argo CD cluster Secret: here a loopback address of the same API server with
// a client certificate) and the child's destination namespace; prod's Jobs fail, which
// fails those clusters and stops the rollout. The cluster Secret's key never reaches the
// agent's log, the state or Events.
func TestPerClusterJobChecksRunInTheirClusters(t *testing.T) {
	env.Pods(t)
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "pcjob", "stop")
	spec := perClusterJobSpec(r.name, "default", "")
	if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": spec,
		r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
		t.Fatal(err)
	}
	rev, _ := revisionOf(t, spec)
	defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
	newParent(ctx, t, r.name, r.name+"/app", 0)
	r.until("the rollout stops at prod's failed cluster checks", rev, rollout.StatusStopped, everywhere("v1"))
	st, _ := r.state(ctx)
	failed := 0
	for i, want := range []struct {
		clusters []string
		status   state.HookStatus
		message  string
	}{
		{[]string{"dev-1", "dev-2", "staging-1", "staging-2"}, state.HookSucceeded, "Complete"},
		{[]string{"prod-1", "prod-2"}, state.HookFailed, "BackoffLimitExceeded"},
	} {
		runs := clusterRuns(st, i, "smoke")
		if len(runs) != len(want.clusters) {
			t.Fatalf("phase %d: %d cluster runs, want %d: %+v", i, len(runs), len(want.clusters), runs)
		}
		for _, c := range want.clusters {
			run := runs[r.name+"-"+c]
			if want.status == state.HookFailed && run.Status == state.HookRunning {
				continue // the rollout stops at prod's first failed cluster: the other's run may not have ended
			}
			if run.Status == state.HookFailed {
				failed++
			}
			if run.Status != want.status || !strings.Contains(run.Message, want.message) || !strings.Contains(run.Message, "in cluster "+c) {
				t.Errorf("%s's run: %+v", c, run)
			}
			sel := contract.LabelJobRollout + "=" + r.name + "," + contract.LabelJobHook + "=smoke"
			jobs, err := env.Kube.BatchV1().Jobs(c).List(ctx, metav1.ListOptions{LabelSelector: sel})
			if err != nil || len(jobs.Items) != 1 || !strings.HasSuffix(jobs.Items[0].Annotations[contract.AnnotationJobKey], "/"+r.name+"-"+c) {
				t.Errorf("%s: want its one Job in its namespace: %v %v", c, jobs, err)
			}
		}
	}
	if failed == 0 {
		t.Errorf("no prod cluster's check Job failed, yet the rollout stopped")
	}
	if n := len(hookJobs(ctx, t, r.name, "smoke")); n != 0 {
		t.Fatalf("%d per-cluster Jobs ran on the control cluster's argocd namespace", n)
	}
	key := strings.Split(strings.TrimSpace(string(env.PKI.AdminKey)), "\n")
	r.neverShows(ctx, key[1])
}

// TestAPerClusterJobOutsideItsProjectIsErrored (issue 13 point 1, per cluster): the
// children's AppProject permits only the clusters' own namespaces; a check Job asking for
// another (job.namespace jobs-<cluster>) is Errored for each cluster, naming the project and
// the destination, and no Job is made anywhere.
func TestAPerClusterJobOutsideItsProjectIsErrored(t *testing.T) {
	env.Pods(t)
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "pcjobproj", "stop")
	proj := &v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: r.name, Namespace: framework.ArgoNamespace},
		Spec: v1alpha1.AppProjectSpec{SourceRepos: []string{"*"}, Destinations: []v1alpha1.ApplicationDestination{
			{Server: "*", Namespace: "dev-*"}, {Server: "*", Namespace: "staging-*"}, {Server: "*", Namespace: "prod-*"}}}}
	if _, err := env.Argo.ArgoprojV1alpha1().AppProjects(framework.ArgoNamespace).Create(ctx, proj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Argo.ArgoprojV1alpha1().AppProjects(framework.ArgoNamespace).Delete(context.Background(), r.name, metav1.DeleteOptions{})
	})
	spec := perClusterJobSpec(r.name, r.name, "jobs-{{name}}")
	if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": spec,
		r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
		t.Fatal(err)
	}
	defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
	newParent(ctx, t, r.name, r.name+"/app", 0)
	// The rollout stops at the first Errored checks (onFailure: stop); a check whose result
	// came after that decision is recorded in the stopped rollout's ledger when it ends (one
	// not started yet never starts). Every check that started ends Errored by the project,
	// and at least one started.
	early := []string{"dev-1", "dev-2", "staging-1", "staging-2"}
	env.WaitFor(t, 5*time.Minute, "early's cluster checks are Errored by the project and the rollout stopped", func(ctx context.Context) (bool, string) {
		st, err := r.state(ctx)
		if err != nil {
			return false, err.Error()
		}
		if st.Rollout == nil || st.Rollout.Status != state.RolloutStopped {
			return false, fmt.Sprintf("rollout %+v", st.Rollout)
		}
		runs, errored := clusterRuns(st, 0, "smoke"), 0
		for _, c := range early {
			run, ok := runs[r.name+"-"+c]
			if !ok {
				continue // not started before the stop: never starts
			}
			if run.Status == state.HookRunning {
				return false, c + "'s check still Running"
			}
			want := fmt.Sprintf("AppProject %s does not permit destination server", r.name)
			if run.Status != state.HookErrored || !strings.Contains(run.Message, want) || !strings.Contains(run.Message, "namespace jobs-"+c) {
				return false, fmt.Sprintf("%s: %+v", c, run)
			}
			errored++
		}
		return errored > 0, fmt.Sprintf("%d of %d Errored", errored, len(early))
	})
	sel := contract.LabelJobRollout + "=" + r.name
	jobs, err := env.Kube.BatchV1().Jobs("").List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil || len(jobs.Items) != 0 {
		t.Fatalf("a Job was made outside the project: %v %v", jobs, err)
	}
}
