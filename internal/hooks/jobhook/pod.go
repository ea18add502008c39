package jobhook

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// checkPod refuses a pod the Job controller would refuse (no containers, restartPolicy
// Always; an unset restartPolicy is Never, seed 002's) and one that would run with more
// than the agent grants: its own service account or token, the node's namespaces, a host
// path, a chosen node, a privileged container or one that may escalate.
func checkPod(r *spec.HookReader, n *yaml.Node, path string, pod *corev1.PodSpec) {
	if len(pod.Containers) == 0 {
		r.Fail(n, path+".containers", "list at least one container", "is required")
	}
	for i, c := range pod.Containers {
		if c.Name == "" || c.Image == "" {
			r.Fail(n, fmt.Sprintf("%s.containers[%d]", path, i), "give every container a name and an image", "name and image are required")
		}
	}
	switch pod.RestartPolicy {
	case "":
		pod.RestartPolicy = corev1.RestartPolicyNever
	case corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure:
	default:
		r.Fail(n, path+".restartPolicy", "use Never or OnFailure", "a Job's pod cannot restart %s", pod.RestartPolicy)
	}
	checkPodPrivileges(r, n, path, pod)
	checkPodFields(r, n, path, pod)
}

// checkPodPrivileges refuses what would give the Job more than the agent's
// --job-service-account and an unprivileged pod.
func checkPodPrivileges(r *spec.HookReader, n *yaml.Node, path string, pod *corev1.PodSpec) {
	const saFix = "remove it: the agent runs every Job as its --job-service-account, without a token"
	refuse := []struct {
		bad         bool
		field, what string
		fix         string
	}{
		{pod.ServiceAccountName != "", "serviceAccountName", "a job hook cannot choose its service account", saFix},
		{pod.DeprecatedServiceAccount != "", "serviceAccount", "a job hook cannot choose its service account", saFix},
		{pod.AutomountServiceAccountToken != nil && *pod.AutomountServiceAccountToken, "automountServiceAccountToken", "a job hook's pod gets no service account token", "remove it or set false"},
		{pod.HostNetwork, "hostNetwork", "a job hook's pod cannot use the node's network", "remove it"},
		{pod.HostPID, "hostPID", "a job hook's pod cannot see the node's processes", "remove it"},
		{pod.HostIPC, "hostIPC", "a job hook's pod cannot use the node's IPC", "remove it"},
		{pod.NodeName != "", "nodeName", "a job hook's pod cannot bypass the scheduler", "remove it; use nodeSelector or affinity"},
	}
	for _, ref := range refuse {
		if ref.bad {
			r.Fail(n, path+"."+ref.field, ref.fix, "%s", ref.what)
		}
	}
	for i, v := range pod.Volumes {
		if v.HostPath != nil {
			r.Fail(n, fmt.Sprintf("%s.volumes[%d].hostPath", path, i), "use an emptyDir, configMap or a labelled Secret", "a job hook's pod cannot mount a path of the node")
		}
	}
	for _, l := range []struct {
		name string
		cs   []corev1.Container
	}{{"initContainers", pod.InitContainers}, {"containers", pod.Containers}} {
		for i, c := range l.cs {
			sc, at := c.SecurityContext, fmt.Sprintf("%s.%s[%d].securityContext", path, l.name, i)
			if sc == nil {
				continue
			}
			if sc.Privileged != nil && *sc.Privileged {
				r.Fail(n, at+".privileged", "remove it or set false", "a job hook's container cannot be privileged")
			}
			if sc.AllowPrivilegeEscalation != nil && *sc.AllowPrivilegeEscalation {
				r.Fail(n, at+".allowPrivilegeEscalation", "remove it or set false", "a job hook's container cannot escalate its privileges")
			}
		}
	}
}
