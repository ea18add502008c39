//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// execNewPodSpec is twoPhaseSpec with a `migrate` check per cluster whose pod is the
// container containerName (early's; prod's) of the Deployment <rollout>-web in the child's
// destination (seed 004's ExecNewPod: rake db:migrate with RAILS_ENV from the cluster's
// env label).
func execNewPodSpec(name, early, prod string) string {
	block := func(container string) string {
		return fmt.Sprintf(`        checks:
        - name: migrate
          type: job
          timeout: 3m
          job:
            spec:
              backoffLimit: 0
              activeDeadlineSeconds: 120
            execNewPod:
              workload: {kind: Deployment, name: %s-web}
              containerName: %s
              command: [bin/rake, db:migrate]
              env:
              - name: RAILS_ENV
                value: '{{metadata.labels.env}}'
`, name, container)
	}
	return twoPhaseSpec(name, block(early), block(prod))
}

// putWorkload puts in cluster c's namespace the Deployment <rollout>-web (no replicas:
// only its pod template is read), whose container web runs image web:<cluster> as user
// 1000 beside a proxy, with env, envFrom, a working directory, args, a volume and a
// probe; and the hook-labelled Secret its env references. Both go when the test ends.
func putWorkload(ctx context.Context, t *testing.T, rollout string, c framework.Cluster) {
	t.Helper()
	kube := env.ClusterKube(c.Name)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: rollout + "-db", Namespace: c.Name, Labels: map[string]string{contract.LabelHookSecret: "true"}},
		StringData: map[string]string{"password": "execpod-" + c.Name}}
	ref := func(name string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: name} }
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: rollout + "-web", Namespace: c.Name}, Spec: appsv1.DeploymentSpec{
		Replicas: new(int32(0)),
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": rollout}},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": rollout}},
			Spec: corev1.PodSpec{
				SecurityContext: &corev1.PodSecurityContext{RunAsUser: new(int64(1000))},
				Volumes:         []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				Containers: []corev1.Container{
					{Name: "web", Image: "example.invalid/web:" + c.Name, WorkingDir: "/srv", Args: []string{"rails", "server"},
						Env: []corev1.EnvVar{{Name: "APP_MODE", Value: "serve"}, {Name: "RAILS_ENV", Value: "development"},
							{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: ref(secret.Name), Key: "password"}}}},
						EnvFrom:        []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: ref(rollout + "-web-config")}}},
						VolumeMounts:   []corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/up", Port: intstr.FromInt32(3000)}}}},
					{Name: "proxy", Image: "example.invalid/proxy:1"},
				},
			},
		},
	}}
	if _, err := kube.CoreV1().Secrets(c.Name).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.AppsV1().Deployments(c.Name).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.AppsV1().Deployments(c.Name).Delete(context.Background(), d.Name, metav1.DeleteOptions{})
		_ = kube.CoreV1().Secrets(c.Name).Delete(context.Background(), secret.Name, metav1.DeleteOptions{})
	})
}

// TestAnExecNewPodJobRunsTheWorkloadsContainer (issue 35 item 4, seed 004's ExecNewPod):
// each child's destination holds a Deployment; early's per-cluster check runs, in each
// cluster, a Job whose one container is the Deployment's web container — its image, env
// (RAILS_ENV the hook's, from the cluster's label), envFrom, working directory, user —
// with the hook's command and no args, none of its volumes, probes or other container,
// hardened, as the Job service account without a token; the Job completes under kwok and
// the run is recorded Succeeded. Prod's check names a container the Deployment lacks: its
// runs are Errored naming the containers there, no Job is made, and the rollout stops.
func TestAnExecNewPodJobRunsTheWorkloadsContainer(t *testing.T) {
	env.Pods(t)
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "execpod", "stop")
	for _, c := range env.Clusters {
		putWorkload(ctx, t, r.name, c)
	}
	spec := execNewPodSpec(r.name, "web", "rails")
	if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": spec,
		r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
		t.Fatal(err)
	}
	rev, _ := revisionOf(t, spec)
	defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
	newParent(ctx, t, r.name, r.name+"/app", 0)
	r.until("early's execNewPod checks complete and prod's, naming a missing container, stop the rollout", rev, rollout.StatusStopped, everywhere("v1"))
	st, _ := r.state(ctx)
	early := clusterRuns(st, 0, "migrate")
	for _, c := range env.Clusters[:4] {
		run := early[r.name+"-"+c.Name]
		if run.Status != state.HookSucceeded || !strings.Contains(run.Message, "Complete") || !strings.Contains(run.Message, "in cluster "+c.Name) {
			t.Errorf("%s's run: %+v", c.Name, run)
		}
		checkExecPodJob(ctx, t, r.name, c)
	}
	errored := 0
	for _, c := range env.Clusters[4:] {
		run, ok := clusterRuns(st, 1, "migrate")[r.name+"-"+c.Name]
		if !ok || run.Status == state.HookRunning {
			continue // the rollout stops at prod's first Errored check: the other's may not have ended
		}
		want := fmt.Sprintf(`in cluster %s: job.execNewPod.containerName: Deployment %s/%s-web has no container "rails" (its containers: web, proxy; fix: name one of them)`, c.Name, c.Name, r.name)
		if run.Status != state.HookErrored || !strings.Contains(run.Message, want) {
			t.Errorf("%s's run: %+v\nwant %q", c.Name, run, want)
		}
		errored++
		if jobs := execPodJobs(ctx, t, r.name, c.Name); len(jobs) != 0 {
			t.Errorf("%s: a Job was made for a missing container: %v", c.Name, jobs)
		}
	}
	if errored == 0 {
		t.Errorf("no prod run was Errored, yet the rollout stopped: %+v", st.Rollout.Phases[1].Hooks)
	}
}

// execPodJobs are the migrate Jobs of rollout in cluster's namespace.
func execPodJobs(ctx context.Context, t *testing.T, rollout, cluster string) []string {
	t.Helper()
	sel := contract.LabelJobRollout + "=" + rollout + "," + contract.LabelJobHook + "=migrate"
	jobs, err := env.ClusterKube(cluster).BatchV1().Jobs(cluster).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, j := range jobs.Items {
		names = append(names, j.Name)
	}
	return names
}

// checkExecPodJob checks the one migrate Job in cluster c's namespace: its pod is the
// Deployment's web container as the hook makes it, and its pod ran that.
func checkExecPodJob(ctx context.Context, t *testing.T, rollout string, c framework.Cluster) {
	t.Helper()
	names := execPodJobs(ctx, t, rollout, c.Name)
	if len(names) != 1 {
		t.Fatalf("%s: want one migrate Job in its namespace, got %v", c.Name, names)
	}
	job, err := env.ClusterKube(c.Name).BatchV1().Jobs(c.Name).Get(ctx, names[0], metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := job.Spec.Template.Spec
	if len(pod.Containers) != 1 || len(pod.Volumes) != 0 || pod.ServiceAccountName != contract.DefaultJobServiceAccount || *pod.AutomountServiceAccountToken ||
		pod.SecurityContext == nil || pod.SecurityContext.RunAsUser == nil || *pod.SecurityContext.RunAsUser != 1000 ||
		pod.SecurityContext.SeccompProfile == nil || pod.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Fatalf("%s: pod %+v", c.Name, pod)
	}
	ctr := pod.Containers[0]
	if ctr.Name != "web" || ctr.Image != "example.invalid/web:"+c.Name || ctr.WorkingDir != "/srv" || !slices.Equal(ctr.Command, []string{"bin/rake", "db:migrate"}) ||
		len(ctr.Args) != 0 || len(ctr.VolumeMounts) != 0 || ctr.ReadinessProbe != nil || len(ctr.EnvFrom) != 1 || ctr.EnvFrom[0].ConfigMapRef.Name != rollout+"-web-config" {
		t.Fatalf("%s: container %+v", c.Name, ctr)
	}
	if sc := ctr.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Fatalf("%s: container security %+v", c.Name, ctr.SecurityContext)
	}
	vars := map[string]corev1.EnvVar{}
	for _, e := range ctr.Env {
		vars[e.Name] = e
	}
	if vars["RAILS_ENV"].Value != c.Labels["env"] || vars["APP_MODE"].Value != "serve" || vars[contract.EnvClusterName].Value != rollout+"-"+c.Name ||
		vars["DB_PASSWORD"].Value != "" || vars["DB_PASSWORD"].ValueFrom == nil || vars["DB_PASSWORD"].ValueFrom.SecretKeyRef.Name != rollout+"-db" {
		t.Fatalf("%s: env %+v", c.Name, ctr.Env)
	}
	pods, err := env.ClusterKube(c.Name).CoreV1().Pods(c.Name).List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + job.Name})
	if err != nil || len(pods.Items) == 0 || pods.Items[0].Spec.Containers[0].Image != ctr.Image || pods.Items[0].Status.Phase != corev1.PodSucceeded {
		t.Fatalf("%s: the Job's pod: %v %v", c.Name, pods, err)
	}
}
