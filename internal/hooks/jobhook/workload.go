package jobhook

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// groupKind is the apps/v1 kind execNewPod names, as an AppProject names it.
func (w WorkloadRef) groupKind() schema.GroupKind {
	return schema.GroupKind{Group: "apps", Kind: w.Kind}
}

// reads are the objects a run of h reads in its Job's namespace, which the child's
// AppProject must permit too: execNewPod's workload.
func (j *Block) reads() []objectRef {
	if j.ExecNewPod == nil {
		return nil
	}
	w := j.ExecNewPod.Workload
	return []objectRef{{Kind: w.groupKind(), Name: w.Name, Why: "job.execNewPod reads"}}
}

// withWorkloadPod is h with its pod made from the workload execNewPod names (h itself
// without one): read now in ns through kube (the run's cluster, the child's AppProject
// having permitted it), its container's image, env and envFrom taken (podFromWorkload).
// An error names the field, what was not found and the fix; a per-phase run (target nil)
// cannot have one.
func withWorkloadPod(ctx context.Context, kube kubernetes.Interface, ns string, target *hooks.Target, h *Block) (*Block, error) {
	e := h.ExecNewPod
	if e == nil {
		return h, nil
	}
	if target == nil {
		return nil, errors.New("not run: job.execNewPod runs only once per cluster, in the child's cluster, and this run is per phase (fix: let the parent render the plan again with a sidecar of the agent's version, which refuses it)")
	}
	tmpl, err := workloadTemplate(ctx, kube, ns, e.Workload)
	if err != nil {
		return nil, err
	}
	pod, err := podFromWorkload(e, &tmpl.Spec, fmt.Sprintf("%s %s/%s", e.Workload.Kind, ns, e.Workload.Name))
	if err != nil {
		return nil, err
	}
	out := *h
	out.Spec = *h.Spec.DeepCopy()
	out.Spec.Template = corev1.PodTemplateSpec{Spec: pod}
	return &out, nil
}

// workloadTemplate reads the pod template of the workload ref names in ns: a GET of that
// one object (never a list), nothing kept.
func workloadTemplate(ctx context.Context, kube kubernetes.Interface, ns string, ref WorkloadRef) (*corev1.PodTemplateSpec, error) {
	apps := kube.AppsV1()
	var tmpl *corev1.PodTemplateSpec
	var err error
	switch ref.Kind {
	case KindDeployment:
		d, e := apps.Deployments(ns).Get(ctx, ref.Name, metav1.GetOptions{})
		if err = e; e == nil {
			tmpl = &d.Spec.Template
		}
	case KindStatefulSet:
		s, e := apps.StatefulSets(ns).Get(ctx, ref.Name, metav1.GetOptions{})
		if err = e; e == nil {
			tmpl = &s.Spec.Template
		}
	case KindDaemonSet:
		d, e := apps.DaemonSets(ns).Get(ctx, ref.Name, metav1.GetOptions{})
		if err = e; e == nil {
			tmpl = &d.Spec.Template
		}
	default:
		return nil, fmt.Errorf("not run: job.execNewPod.workload.kind %q is not one of %s (fix: use one of them, apps/v1)", ref.Kind, strings.Join(workloadKinds, ", "))
	}
	return tmpl, workloadErr(err, ns, ref)
}

// workloadErr says what reading the workload ref in ns failed for, naming the field and
// the fix; nil for nil.
func workloadErr(err error, ns string, ref WorkloadRef) error {
	what := fmt.Sprintf("%s %s/%s", ref.Kind, ns, ref.Name)
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return fmt.Errorf("job.execNewPod.workload: %s not found (fix: name a %s of the child's destination by its metadata.name, or set job.namespace to the namespace it is in)", what, ref.Kind)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("job.execNewPod.workload: reading %s is forbidden (fix: Argo CD's credentials for the cluster need get on %s there; for the in-cluster server, the agent's Role bound in that namespace): %w",
			what, strings.ToLower(ref.Kind)+"s", err)
	}
	return fmt.Errorf("job.execNewPod.workload: reading %s: %w", what, err)
}

// podFromWorkload is the pod of an execNewPod hook, made from the container of pod (the
// workload's template, named by what) that e names: one container of that name, its
// image, imagePullPolicy, workingDir, env, envFrom and resources (not its resource
// claims), the hook's command (the container's args cleared) and its env added (replacing
// a variable of the same name); of the pod, what lets the image run where the workload
// does — imagePullSecrets, nodeSelector, tolerations and node affinity — and the user and
// group the container runs as (never root: that is an error). Secrets stay references
// (the run checks their label); nothing else is taken: no volumes or mounts, service
// account, init or other containers, probes, ports, lifecycle, capabilities or host
// namespaces. The Job's hardening (restricted) is applied after, as to every Job.
func podFromWorkload(e *ExecNewPod, pod *corev1.PodSpec, what string) (corev1.PodSpec, error) {
	i := slices.IndexFunc(pod.Containers, func(c corev1.Container) bool { return c.Name == e.ContainerName })
	if i < 0 {
		names := make([]string, len(pod.Containers))
		for k, c := range pod.Containers {
			names[k] = c.Name
		}
		return corev1.PodSpec{}, fmt.Errorf("job.execNewPod.containerName: %s has no container %q (its containers: %s; fix: name one of them)",
			what, e.ContainerName, strings.Join(names, ", "))
	}
	c := pod.Containers[i].DeepCopy()
	if c.Image == "" {
		return corev1.PodSpec{}, fmt.Errorf("job.execNewPod.containerName: container %s of %s has no image", c.Name, what)
	}
	psc, err := runAs(pod.SecurityContext, c.SecurityContext, c.Name, what)
	if err != nil {
		return corev1.PodSpec{}, err
	}
	c.Resources.Claims = nil // they name the workload's pod resource claims, not copied
	env := make([]corev1.EnvVar, len(e.Env))
	for k := range e.Env {
		env[k] = *e.Env[k].DeepCopy()
	}
	out := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{
			Name: c.Name, Image: c.Image, ImagePullPolicy: c.ImagePullPolicy, WorkingDir: c.WorkingDir,
			Command: slices.Clone(e.Command), Env: withEnv(c.Env, env), EnvFrom: c.EnvFrom, Resources: c.Resources,
		}},
		SecurityContext:  psc,
		ImagePullSecrets: slices.Clone(pod.ImagePullSecrets),
		NodeSelector:     maps.Clone(pod.NodeSelector),
	}
	for _, t := range pod.Tolerations {
		out.Tolerations = append(out.Tolerations, *t.DeepCopy())
	}
	if pod.Affinity != nil && pod.Affinity.NodeAffinity != nil {
		out.Affinity = &corev1.Affinity{NodeAffinity: pod.Affinity.NodeAffinity.DeepCopy()}
	}
	return out, nil
}

// runAs is the pod security context of the hook's pod: the user and group the workload's
// container runs as (its own securityContext's, else its pod's), nil when it names
// neither. A root user is an error: a job hook's pod never runs as root.
func runAs(pod *corev1.PodSecurityContext, c *corev1.SecurityContext, name, what string) (*corev1.PodSecurityContext, error) {
	var user, group *int64
	if pod != nil {
		user, group = pod.RunAsUser, pod.RunAsGroup
	}
	if c != nil && c.RunAsUser != nil {
		user = c.RunAsUser
	}
	if c != nil && c.RunAsGroup != nil {
		group = c.RunAsGroup
	}
	if user != nil && *user == 0 {
		return nil, fmt.Errorf("job.execNewPod.containerName: container %s of %s runs as root (runAsUser: 0), which a job hook's pod never does (fix: run the workload as another user, or write the pod in job.spec.template)", name, what)
	}
	if user == nil && group == nil {
		return nil, nil
	}
	out := &corev1.PodSecurityContext{}
	if user != nil {
		out.RunAsUser = ptr(*user)
	}
	if group != nil {
		out.RunAsGroup = ptr(*group)
	}
	return out, nil
}
