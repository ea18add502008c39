package jobhook

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestAJobPodIsAnAllowlist: a job hook's pod may set only the fields of Pod Security's
// restricted level; each field beyond them is refused naming its path (a projected service
// account token, added capabilities, an unconfined profile, SELinux, a host port, network
// and inline CSI volumes, procMount, sysctls, a runtime or priority class, root), while a
// pod that sets what restricted allows parses.
func TestAJobPodIsAnAllowlist(t *testing.T) {
	pod := func(fields string) string {
		return `{name: j, type: job, job: {spec: {template: {spec: {` + fields + `}}}}}`
	}
	const c = `{name: c, image: x}`
	ok := pod(`securityContext: {runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000, seccompProfile: {type: RuntimeDefault}},
		volumes: [{name: cfg, configMap: {name: c}}, {name: p, projected: {sources: [{configMap: {name: c}}, {downwardAPI: {items: [{path: l, fieldRef: {fieldPath: metadata.labels}}]}}]}}],
		containers: [{name: c, image: x, ports: [{containerPort: 8080}], livenessProbe: {httpGet: {path: /healthz, port: 8080, scheme: HTTP}, periodSeconds: 5},
		readinessProbe: {tcpSocket: {port: 8080}}, lifecycle: {preStop: {exec: {command: [sleep, "1"]}}}, securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true,
		capabilities: {drop: [ALL], add: [NET_BIND_SERVICE]}, seccompProfile: {type: Localhost, localhostProfile: p.json}}}]`)
	if _, err := parseWithCheck(strings.ReplaceAll(ok, "\n\t\t", " ")); err != nil {
		t.Fatalf("a restricted pod: %v", err)
	}
	for block, want := range map[string]string{
		pod(`volumes: [{name: t, projected: {sources: [{serviceAccountToken: {path: token}}]}}], containers: [` + c + `]`): `spec.volumes[0].projected.sources[0].serviceAccountToken: is not allowed`,
		pod(`containers: [{name: c, image: x, securityContext: {capabilities: {add: [SYS_ADMIN]}}}]`):                      `containers[0].securityContext.capabilities.add[0]: must be one of [NET_BIND_SERVICE]`,
		pod(`containers: [{name: c, image: x, securityContext: {capabilities: {add: [ALL]}}}]`):                            `capabilities.add[0]: must be one of`,
		pod(`securityContext: {seccompProfile: {type: Unconfined}}, containers: [` + c + `]`):                              `spec.securityContext.seccompProfile.type: must be one of [RuntimeDefault Localhost]`,
		pod(`containers: [{name: c, image: x, securityContext: {appArmorProfile: {type: Unconfined}}}]`):                   `appArmorProfile.type: must be one of`,
		pod(`securityContext: {seLinuxOptions: {type: spc_t}}, containers: [` + c + `]`):                                   `spec.securityContext.seLinuxOptions: is not allowed`,
		pod(`containers: [{name: c, image: x, ports: [{containerPort: 80, hostPort: 80}]}]`):                               `containers[0].ports[0].hostPort: is not allowed`,
		pod(`volumes: [{name: vol, nfs: {server: s, path: /}}], containers: [` + c + `]`):                                  `spec.volumes[0].nfs: is not allowed`,
		pod(`volumes: [{name: vol, persistentVolumeClaim: {claimName: data}}], containers: [` + c + `]`):                   `spec.volumes[0].persistentVolumeClaim: is not allowed`,
		pod(`volumes: [{name: vol, csi: {driver: secrets-store.csi.k8s.io}}], containers: [` + c + `]`):                    `spec.volumes[0].csi: is not allowed`,
		pod(`volumes: [{name: vol, ephemeral: {volumeClaimTemplate: {spec: {}}}}], containers: [` + c + `]`):               `spec.volumes[0].ephemeral: is not allowed`,
		pod(`containers: [{name: c, image: x, securityContext: {procMount: Unmasked}}]`):                                   `containers[0].securityContext.procMount: is not allowed`,
		pod(`securityContext: {sysctls: [{name: kernel.shm_rmid_forced, value: "1"}]}, containers: [` + c + `]`):           `spec.securityContext.sysctls: is not allowed`,
		pod(`runtimeClassName: kata, containers: [` + c + `]`):                                                             `spec.runtimeClassName: is not allowed`,
		pod(`priorityClassName: system-node-critical, containers: [` + c + `]`):                                            `spec.priorityClassName: is not allowed`,
		pod(`securityContext: {runAsUser: 0}, containers: [` + c + `]`):                                                    `spec.securityContext.runAsUser: must be a user other than 0 (root)`,
		pod(`containers: [{name: c, image: x, securityContext: {runAsNonRoot: false}}]`):                                   `containers[0].securityContext.runAsNonRoot: must be true`,
		// issue 47: a probe or a lifecycle hook calling another host on the pod's behalf.
		pod(`containers: [{name: c, image: x, livenessProbe: {httpGet: {host: 169.254.169.254, path: /, port: 80}}}]`):             `containers[0].livenessProbe.httpGet.host: is not allowed`,
		pod(`containers: [{name: c, image: x, readinessProbe: {tcpSocket: {host: 10.0.0.1, port: 6443}}}]`):                        `containers[0].readinessProbe.tcpSocket.host: is not allowed`,
		pod(`containers: [{name: c, image: x, startupProbe: {httpGet: {host: kubernetes.default, port: 443}}}]`):                   `containers[0].startupProbe.httpGet.host: is not allowed`,
		pod(`containers: [{name: c, image: x, lifecycle: {postStart: {httpGet: {host: 10.0.0.1, port: 80}}}}]`):                    `containers[0].lifecycle.postStart.httpGet.host: is not allowed`,
		pod(`containers: [{name: c, image: x, lifecycle: {preStop: {tcpSocket: {host: 10.0.0.1, port: 22}}}}]`):                    `containers[0].lifecycle.preStop.tcpSocket.host: is not allowed`,
		pod(`initContainers: [{name: c, image: x, lifecycle: {preStop: {httpGet: {host: h, port: 1}}}}], containers: [` + c + `]`): `initContainers[0].lifecycle.preStop.httpGet.host: is not allowed`,
	} {
		_, err := parseWithCheck(block)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "fix: remove it: a job hook's pod runs at Pod Security restricted level") {
			t.Errorf("%s:\n got %v\nwant %q", block, err, want)
		}
	}
}

// TestAJobIsBuiltRestricted: the agent sets what the restricted level asks and the spec
// left unset (RuntimeDefault seccomp, non-root, no escalation, every capability dropped),
// keeps what the spec set within it, and refuses to build the Job of a plan whose pod
// goes beyond it (the parser refused it; a plan is not trusted).
func TestAJobIsBuiltRestricted(t *testing.T) {
	job := mustBuildJob(t, jobCall(BeforeHookCreation), "argocd", "default")
	pod := job.Spec.Template.Spec
	c := pod.Containers[0].SecurityContext
	if pod.SecurityContext.SeccompProfile.Type != "RuntimeDefault" || !*pod.SecurityContext.RunAsNonRoot ||
		*c.AllowPrivilegeEscalation || len(c.Capabilities.Drop) != 1 || c.Capabilities.Drop[0] != "ALL" {
		t.Fatalf("pod %+v container %+v", pod.SecurityContext, c)
	}
	call := jobCall(BeforeHookCreation)
	uid := int64(1000)
	call.Hook.Block.(*Block).Spec.Template.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: &uid}
	if got := mustBuildJob(t, call, "argocd", "default").Spec.Template.Spec.SecurityContext; got.RunAsNonRoot != nil || *got.RunAsUser != 1000 {
		t.Fatalf("the spec's own user is kept: %+v", got)
	}
	// issue 47: a drop list without ALL kept the runtime's default capabilities.
	for _, caps := range []corev1.Capabilities{
		{Drop: []corev1.Capability{"NET_RAW"}},
		{Drop: []corev1.Capability{"NET_RAW", "ALL"}},
		{Drop: []corev1.Capability{"NET_RAW"}, Add: []corev1.Capability{"NET_BIND_SERVICE"}},
	} {
		call := jobCall(BeforeHookCreation)
		call.Hook.Block.(*Block).Spec.Template.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Capabilities: caps.DeepCopy()}
		got := mustBuildJob(t, call, "argocd", "default").Spec.Template.Spec.Containers[0].SecurityContext.Capabilities
		if !slices.Equal(got.Drop, []corev1.Capability{"ALL"}) || !slices.Equal(got.Add, caps.Add) {
			t.Errorf("drop %v add %v: built with drop %v add %v, want drop [ALL] and the spec's add", caps.Drop, caps.Add, got.Drop, got.Add)
		}
	}
	for name, edit := range map[string]func(*corev1.PodSpec){
		"runtimeClassName": func(p *corev1.PodSpec) { p.RuntimeClassName = ptr("kata") },
		"hostNetwork":      func(p *corev1.PodSpec) { p.HostNetwork = true },
		"privileged": func(p *corev1.PodSpec) {
			p.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr(true)}
		},
	} {
		call := jobCall(BeforeHookCreation)
		edit(&call.Hook.Block.(*Block).Spec.Template.Spec)
		if _, err := buildJob(call, call.Hook.Block.(*Block), "argocd", "default", nil); err == nil || !strings.HasPrefix(err.Error(), "not run: spec.template.spec") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
