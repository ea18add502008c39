package jobhook

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// railsPod is the pod template of seed 004's rails Deployment, with everything a pod
// template may carry that an execNewPod hook must not take (volumes, a service account,
// an init container and a sidecar, probes, ports, privileges, host namespaces) beside what
// it takes.
func railsPod() corev1.PodTemplateSpec {
	ref := func(name string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: name} }
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"name": "rails", "app.kubernetes.io/name": "rails"}, Annotations: map[string]string{"a": "b"}},
		Spec: corev1.PodSpec{
			ServiceAccountName: "rails-admin", HostNetwork: true, NodeName: "n1", PriorityClassName: "high", RuntimeClassName: new("kata"),
			Volumes:          []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var"}}}},
			InitContainers:   []corev1.Container{{Name: "init", Image: "busybox"}},
			ImagePullSecrets: []corev1.LocalObjectReference{ref("registry")},
			NodeSelector:     map[string]string{"kubernetes.io/arch": "arm64"},
			Tolerations:      []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "rails", Effect: corev1.TaintEffectNoSchedule}},
			Affinity: &corev1.Affinity{
				NodeAffinity:    &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"apps"}}}}}}},
				PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "kubernetes.io/hostname"}}},
			},
			SecurityContext: &corev1.PodSecurityContext{RunAsUser: new(int64(1000)), RunAsGroup: new(int64(3000)), FSGroup: new(int64(2000)), Sysctls: []corev1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}}},
			Containers: []corev1.Container{
				{Name: "proxy", Image: "envoy:1"},
				{
					Name: "rails", Image: "example/rails:v2", ImagePullPolicy: corev1.PullAlways, WorkingDir: "/app",
					Command: []string{"bundle", "exec"}, Args: []string{"rails", "server"},
					Env: []corev1.EnvVar{{Name: "RAILS_ENV", Value: "staging"}, {Name: "DATABASE_HOST", Value: "mysql"},
						{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: ref("db"), Key: "password"}}}},
					EnvFrom:         []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: ref("rails-config")}}, {SecretRef: &corev1.SecretEnvSource{LocalObjectReference: ref("rails-keys")}}},
					Resources:       corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}, Claims: []corev1.ResourceClaim{{Name: "gpu"}}},
					VolumeMounts:    []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
					Ports:           []corev1.ContainerPort{{ContainerPort: 3000, HostPort: 80}},
					LivenessProbe:   &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/"}}},
					Lifecycle:       &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"stop"}}}},
					SecurityContext: &corev1.SecurityContext{RunAsUser: new(int64(1001)), Privileged: new(true), Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SYS_ADMIN"}}},
				},
			},
		},
	}
}

// execCall is clusterCall with seed 004's rails migration as its pod: the rails
// Deployment's rails container, rake db:migrate, RAILS_ENV production.
func execCall(policy string) hooks.Call {
	c := clusterCall(policy)
	c.Hook.Block = &Block{HookDeletePolicy: policy, Spec: batchv1.JobSpec{BackoffLimit: new(int32(1))}, ExecNewPod: &ExecNewPod{
		Workload: WorkloadRef{Kind: KindDeployment, Name: "rails"}, ContainerName: "rails", Command: []string{"bin/rake", "db:migrate"},
		Env: []corev1.EnvVar{{Name: "RAILS_ENV", Value: "production"}, {Name: "MIGRATE", Value: "1"}},
	}}
	return c
}

// withWorkloads adds cluster prod-1 holding, in namespace guestbook, the rails Deployment
// and the labelled Secrets its pod references (db, rails-keys, registry).
func withWorkloads(f *fakeClusters, objs ...runtime.Object) *fake.Clientset {
	for _, name := range []string{"db", "rails-keys", "registry"} {
		s := hookSecret(name, "true")
		s.Namespace = "guestbook"
		objs = append(objs, s)
	}
	if len(objs) == 3 {
		objs = append(objs, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "rails", Namespace: "guestbook"}, Spec: appsv1.DeploymentSpec{Template: railsPod()}})
	}
	cs := fake.NewSimpleClientset(objs...)
	f.remote = map[string]*fake.Clientset{"prod-1": cs}
	return cs
}

// TestExecNewPodJobIsTheWorkloadsContainer (seed 004's ExecNewPod): the Job's one
// container is the named container's image, pull policy, working directory, env (the
// hook's added, replacing one of the same name), envFrom and resources, with the hook's
// command and no args; of the pod only its pull secrets, node selection and non-root user
// and group; nothing else (no volumes, service account, init or other containers, probes,
// ports, privileges, labels). It is hardened as every Job is, made in the child's cluster
// and namespace after the project permitted apps/Deployment rails there, and its outcome
// recorded.
func TestExecNewPodJobIsTheWorkloadsContainer(t *testing.T) {
	f := newFakeClusters()
	remote := withWorkloads(f)
	ending(remote, batchv1.JobComplete, "")
	c := execCall(HookSucceeded)
	res := jobRunner(f).Run(context.Background(), c)
	if res.Outcome != hooks.Succeeded || !strings.Contains(res.Message, "Job guestbook/guestbook-migrate-") || !strings.Contains(res.Message, "in cluster prod-1") {
		t.Fatalf("got %+v", res)
	}
	wantReads := []objectRef{{Kind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Name: "rails", Why: "job.execNewPod reads"}}
	if len(f.reads) != 1 || !slices.Equal(f.reads[0], wantReads) || len(f.control.Actions()) != 0 {
		t.Fatalf("asked to permit %+v; control actions %d", f.reads, len(f.control.Actions()))
	}
	job, err := remote.BatchV1().Jobs("guestbook").Get(context.Background(), JobName(c), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := job.Spec.Template.Spec
	if *job.Spec.BackoffLimit != 1 || len(pod.Containers) != 1 || len(pod.InitContainers) != 0 || len(pod.Volumes) != 0 || pod.ServiceAccountName != contract.DefaultJobServiceAccount ||
		*pod.AutomountServiceAccountToken || pod.HostNetwork || pod.NodeName != "" || pod.PriorityClassName != "" || pod.RuntimeClassName != nil || pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Fatalf("pod %+v", pod)
	}
	if job.Spec.Template.Labels["name"] != "" || job.Spec.Template.Annotations["a"] != "" {
		t.Fatalf("the workload's pod labels or annotations were taken: %v %v", job.Spec.Template.Labels, job.Spec.Template.Annotations)
	}
	if !slices.Equal(pod.ImagePullSecrets, []corev1.LocalObjectReference{{Name: "registry"}}) || pod.NodeSelector["kubernetes.io/arch"] != "arm64" || len(pod.Tolerations) != 1 ||
		pod.Affinity == nil || pod.Affinity.NodeAffinity == nil || pod.Affinity.PodAntiAffinity != nil {
		t.Fatalf("scheduling %+v %v %v %+v", pod.ImagePullSecrets, pod.NodeSelector, pod.Tolerations, pod.Affinity)
	}
	psc := pod.SecurityContext
	if *psc.RunAsUser != 1001 || *psc.RunAsGroup != 3000 || psc.FSGroup != nil || len(psc.Sysctls) != 0 || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Fatalf("pod security %+v", psc)
	}
	ctr := pod.Containers[0]
	if ctr.Name != "rails" || ctr.Image != "example/rails:v2" || ctr.ImagePullPolicy != corev1.PullAlways || ctr.WorkingDir != "/app" ||
		!slices.Equal(ctr.Command, []string{"bin/rake", "db:migrate"}) || len(ctr.Args) != 0 {
		t.Fatalf("container %+v", ctr)
	}
	if len(ctr.VolumeMounts) != 0 || len(ctr.Ports) != 0 || ctr.LivenessProbe != nil || ctr.Lifecycle != nil || len(ctr.Resources.Claims) != 0 || !ctr.Resources.Limits.Memory().Equal(resource.MustParse("512Mi")) {
		t.Fatalf("container took more than it may: %+v", ctr)
	}
	sc := ctr.SecurityContext
	if sc.Privileged != nil || sc.RunAsUser != nil || *sc.AllowPrivilegeEscalation || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
		t.Fatalf("container security %+v", sc)
	}
	if len(ctr.EnvFrom) != 2 || ctr.EnvFrom[1].SecretRef.Name != "rails-keys" {
		t.Fatalf("envFrom %+v", ctr.EnvFrom)
	}
	env := map[string]corev1.EnvVar{}
	var names []string
	for _, e := range ctr.Env {
		env[e.Name] = e
		names = append(names, e.Name)
	}
	if env["RAILS_ENV"].Value != "production" || env["DATABASE_HOST"].Value != "mysql" || env["MIGRATE"].Value != "1" || env[contract.EnvClusterName].Value != "guestbook-prod-1" ||
		env["DB_PASSWORD"].ValueFrom.SecretKeyRef.Name != "db" || env["DB_PASSWORD"].Value != "" || strings.Count(strings.Join(names, ","), "RAILS_ENV") != 1 {
		t.Fatalf("env %v", ctr.Env)
	}
	for _, a := range remote.Actions() {
		if a.GetResource().Resource == "secrets" && a.GetVerb() != "get" || a.GetVerb() == "list" && a.GetResource().Resource == "deployments" {
			t.Fatalf("the run did %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
}

// TestExecNewPodReadsEachKind: a StatefulSet's and a DaemonSet's container are read as a
// Deployment's.
func TestExecNewPodReadsEachKind(t *testing.T) {
	tmpl := railsPod()
	for kind, obj := range map[string]runtime.Object{
		KindStatefulSet: &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "rails", Namespace: "guestbook"}, Spec: appsv1.StatefulSetSpec{Template: tmpl}},
		KindDaemonSet:   &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "rails", Namespace: "guestbook"}, Spec: appsv1.DaemonSetSpec{Template: tmpl}},
	} {
		f := newFakeClusters()
		remote := withWorkloads(f, obj)
		ending(remote, batchv1.JobComplete, "")
		c := execCall("")
		c.Hook.Block.(*Block).ExecNewPod.Workload.Kind = kind
		if res := jobRunner(f).Run(context.Background(), c); res.Outcome != hooks.Succeeded {
			t.Fatalf("%s: %+v", kind, res)
		}
		job, err := remote.BatchV1().Jobs("guestbook").Get(context.Background(), JobName(c), metav1.GetOptions{})
		if err != nil || job.Spec.Template.Spec.Containers[0].Image != "example/rails:v2" || f.reads[0][0].Kind.Kind != kind {
			t.Fatalf("%s: %v %v %+v", kind, job, err, f.reads)
		}
	}
}

// TestExecNewPodErrors: what keeps an execNewPod hook from its pod is Errored, naming the
// field, what was looked for and the fix, and no Job is made: the workload missing (its
// kind, namespace and name, and the cluster), the container missing (the containers there),
// an unknown kind, a root user, a workload the agent may not read, a Secret of the
// container not labelled for hooks, a per-phase run.
func TestExecNewPodErrors(t *testing.T) {
	rootPod := railsPod()
	rootPod.Spec.Containers[1].SecurityContext.RunAsUser = new(int64(0))
	for _, tc := range []struct {
		name string
		edit func(*hooks.Call, *fakeClusters)
		want string
	}{
		{"no workload", func(c *hooks.Call, _ *fakeClusters) { c.Hook.Block.(*Block).ExecNewPod.Workload.Name = "web" },
			"in cluster prod-1: job.execNewPod.workload: Deployment guestbook/web not found (fix: name a Deployment of the child's destination by its metadata.name, or set job.namespace to the namespace it is in)"},
		{"other namespace", func(c *hooks.Call, _ *fakeClusters) { c.Hook.Block.(*Block).Namespace = "jobs" },
			"in cluster prod-1: job.execNewPod.workload: Deployment jobs/rails not found"},
		{"no container", func(c *hooks.Call, _ *fakeClusters) { c.Hook.Block.(*Block).ExecNewPod.ContainerName = "web" },
			`in cluster prod-1: job.execNewPod.containerName: Deployment guestbook/rails has no container "web" (its containers: proxy, rails; fix: name one of them)`},
		{"init container", func(c *hooks.Call, _ *fakeClusters) { c.Hook.Block.(*Block).ExecNewPod.ContainerName = "init" },
			`has no container "init" (its containers: proxy, rails`},
		{"kind", func(c *hooks.Call, _ *fakeClusters) { c.Hook.Block.(*Block).ExecNewPod.Workload.Kind = "CronJob" },
			`job.execNewPod.workload.kind "CronJob" is not one of Deployment, StatefulSet, DaemonSet`},
		{"root", func(_ *hooks.Call, f *fakeClusters) {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "rails", Namespace: "guestbook"}, Spec: appsv1.DeploymentSpec{Template: rootPod}}
			withWorkloads(f, d)
		}, "job.execNewPod.containerName: container rails of Deployment guestbook/rails runs as root (runAsUser: 0), which a job hook's pod never does"},
		{"forbidden", func(_ *hooks.Call, f *fakeClusters) {
			f.remote["prod-1"].PrependReactor("get", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "rails", errors.New("no"))
			})
		}, "job.execNewPod.workload: reading Deployment guestbook/rails is forbidden (fix: Argo CD's credentials for the cluster need get on deployments there"},
		{"unlabelled secret", func(_ *hooks.Call, f *fakeClusters) {
			s := hookSecret("rails-keys", "")
			s.Namespace = "guestbook"
			f.remote["prod-1"].Tracker().Update(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, s, "guestbook")
		}, "in cluster prod-1: the Job references Secret guestbook/rails-keys, which is not labelled cmp-phase.io/hook-secret"},
		{"per phase", func(c *hooks.Call, _ *fakeClusters) { c.Cluster, c.Target = "", nil },
			"not run: job.execNewPod runs only once per cluster"},
		{"project", func(_ *hooks.Call, f *fakeClusters) {
			f.refuse = errors.New("AppProject apps does not permit apps/Deployment rails")
		},
			"AppProject apps does not permit apps/Deployment rails"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeClusters()
			withWorkloads(f)
			c := execCall("")
			e := *c.Hook.Block.(*Block).ExecNewPod
			b := *c.Hook.Block.(*Block)
			b.ExecNewPod = &e
			c.Hook.Block = &b
			tc.edit(&c, f)
			res := jobRunner(f).Run(context.Background(), c)
			if res.Outcome != hooks.Errored || !strings.Contains(res.Message, tc.want) {
				t.Fatalf("got %+v\nwant %q", res, tc.want)
			}
			for _, cs := range []*fake.Clientset{f.remote["prod-1"], f.control} {
				if jobs, _ := cs.BatchV1().Jobs("").List(context.Background(), metav1.ListOptions{}); len(jobs.Items) != 0 {
					t.Fatalf("a Job was made: %v", jobs.Items)
				}
			}
		})
	}
}

// TestExecNewPodNeedsTheProjectToPermitTheWorkload: the child's AppProject must permit the
// workload's kind (and name) at the destination, as for the child to deploy it.
func TestExecNewPodNeedsTheProjectToPermitTheWorkload(t *testing.T) {
	reads := objectRef{Kind: schema.GroupKind{Group: "apps", Kind: "Deployment"}, Name: "rails", Why: "job.execNewPod reads"}
	none := func(string) ([]*v1alpha1.Cluster, error) { return nil, nil }
	dest := []v1alpha1.ApplicationDestination{{Server: "*", Namespace: "*"}}
	for _, tc := range []struct {
		name string
		spec v1alpha1.AppProjectSpec
		want string
	}{
		{"any", v1alpha1.AppProjectSpec{Destinations: dest}, ""},
		{"whitelisted", v1alpha1.AppProjectSpec{Destinations: dest, NamespaceResourceWhitelist: []metav1.GroupKind{{Group: "batch", Kind: "Job"}, {Group: "apps", Kind: "Deployment"}}}, ""},
		{"not whitelisted", v1alpha1.AppProjectSpec{Destinations: dest, NamespaceResourceWhitelist: []metav1.GroupKind{{Group: "batch", Kind: "Job"}}},
			"AppProject apps does not permit apps/Deployment rails, which job.execNewPod reads in cluster prod-1 namespace guestbook (fix: add {group: apps, kind: Deployment} to its namespaceResourceWhitelist"},
		{"blacklisted", v1alpha1.AppProjectSpec{Destinations: dest, NamespaceResourceBlacklist: []metav1.GroupKind{{Group: "apps", Kind: "*"}}}, "does not permit apps/Deployment rails"},
	} {
		proj := &v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: "apps"}, Spec: tc.spec}
		err := jobPermitted(proj, prod1, prod1.Cluster, none, reads)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}
