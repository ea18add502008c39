package jobhook

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// A job hook's pod is an allowlist, not a denylist: the fields below at Pod Security
// "restricted" level, every other field refused naming its path. A rule is nil (any
// value), an object's allowed fields (fields), a list of such objects (each), or a check
// of the value (is).
type (
	fields map[string]any
	each   struct{ of fields }
	is     struct {
		ok   func(any) bool
		want string // what the value must be, for the error
	}
)

// allowedIn is a string value among values.
func allowedIn(values ...string) is {
	return is{func(v any) bool { s, ok := v.(string); return ok && slices.Contains(values, s) }, "one of " + fmt.Sprint(values)}
}

var (
	isFalse  = is{func(v any) bool { return v == false }, "false"}
	isTrue   = is{func(v any) bool { return v == true }, "true"}
	notRoot  = is{func(v any) bool { f, ok := v.(float64); return ok && f != 0 }, "a user other than 0 (root)"}
	seccomp  = fields{"type": allowedIn("RuntimeDefault", "Localhost"), "localhostProfile": nil}
	apparmor = fields{"type": allowedIn("RuntimeDefault", "Localhost"), "localhostProfile": nil}
)

// A probe's or a lifecycle hook's handler may reach the container's own pod only: no
// httpGet.host or tcpSocket.host, with which the kubelet would call any address it can
// reach on the pod's behalf.
var (
	handlerFields = fields{
		"exec":      nil,
		"httpGet":   fields{"path": nil, "port": nil, "scheme": nil, "httpHeaders": nil},
		"tcpSocket": fields{"port": nil},
		"grpc":      nil,
		"sleep":     nil,
	}
	probeFields = fields{
		"exec": nil, "httpGet": handlerFields["httpGet"], "tcpSocket": handlerFields["tcpSocket"], "grpc": nil,
		"initialDelaySeconds": nil, "timeoutSeconds": nil, "periodSeconds": nil, "successThreshold": nil,
		"failureThreshold": nil, "terminationGracePeriodSeconds": nil,
	}
	lifecycleFields = fields{"postStart": handlerFields, "preStop": handlerFields, "stopSignal": nil}
)

// containerFields are a container's allowed fields; privileged and allowPrivilegeEscalation
// are checkPodPrivileges'.
var containerFields = fields{
	"name": nil, "image": nil, "command": nil, "args": nil, "workingDir": nil, "env": nil, "envFrom": nil,
	"resources": nil, "resizePolicy": nil, "volumeMounts": nil, "imagePullPolicy": nil, "restartPolicy": nil,
	"terminationMessagePath": nil, "terminationMessagePolicy": nil, "stdin": nil, "stdinOnce": nil, "tty": nil,
	"livenessProbe": probeFields, "readinessProbe": probeFields, "startupProbe": probeFields, "lifecycle": lifecycleFields,
	"ports": each{fields{"name": nil, "containerPort": nil, "protocol": nil}},
	"securityContext": fields{
		"runAsNonRoot": isTrue, "runAsUser": notRoot, "runAsGroup": nil, "readOnlyRootFilesystem": nil,
		"privileged": nil, "allowPrivilegeEscalation": nil, "seccompProfile": seccomp, "appArmorProfile": apparmor,
		"capabilities": fields{"drop": nil, "add": each2(allowedIn("NET_BIND_SERVICE"))},
	},
}

// podFields are the pod's allowed fields; the service account, the node's namespaces,
// nodeName and hostPath are checkPodPrivileges' (with their own messages).
var podFields = fields{
	"containers": each{containerFields}, "initContainers": each{containerFields}, "restartPolicy": nil,
	"volumes": each{fields{
		"name": nil, "configMap": nil, "secret": nil, "emptyDir": nil, "downwardAPI": nil, "hostPath": nil,
		"projected": fields{"defaultMode": nil, "sources": each{fields{"configMap": nil, "secret": nil, "downwardAPI": nil}}},
	}},
	"nodeSelector": nil, "affinity": nil, "tolerations": nil, "topologySpreadConstraints": nil, "schedulingGates": nil,
	"activeDeadlineSeconds": nil, "terminationGracePeriodSeconds": nil, "imagePullSecrets": nil,
	"dnsPolicy": nil, "dnsConfig": nil, "enableServiceLinks": nil, "hostAliases": nil, "hostname": nil,
	"subdomain": nil, "setHostnameAsFQDN": nil,
	"serviceAccountName": nil, "serviceAccount": nil, "automountServiceAccountToken": nil,
	"hostNetwork": nil, "hostPID": nil, "hostIPC": nil, "nodeName": nil,
	"securityContext": fields{
		"runAsNonRoot": isTrue, "runAsUser": notRoot, "runAsGroup": nil, "fsGroup": nil, "supplementalGroups": nil,
		"fsGroupChangePolicy": nil, "seccompProfile": seccomp, "appArmorProfile": apparmor,
	},
}

// listOf is a list whose every element passes rule.
type listOf struct{ rule is }

func each2(rule is) listOf { return listOf{rule} }

// checkPodFields refuses every field of the pod outside podFields, naming its path.
func checkPodFields(r *spec.HookReader, n *yaml.Node, path string, pod *corev1.PodSpec) {
	b, err := json.Marshal(pod)
	if err != nil {
		r.Fail(n, path, "", "%s", spec.OneLine(err.Error()))
		return
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		r.Fail(n, path, "", "%s", spec.OneLine(err.Error()))
		return
	}
	walkAllowed(v, podFields, path, func(at, what string) {
		r.Fail(n, at, "remove it: a job hook's pod runs at Pod Security restricted level (see docs/hooks/job.md for the fields it may set)", "%s", what)
	})
}

// walkAllowed calls bad for each value of v that rule does not allow.
func walkAllowed(v any, rule any, at string, bad func(at, what string)) {
	switch r := rule.(type) {
	case nil:
	case is:
		if !r.ok(v) {
			bad(at, fmt.Sprintf("must be %s in a job hook's pod, not %v", r.want, v))
		}
	case fields:
		m, _ := v.(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub, ok := r[k]
			if !ok {
				bad(at+"."+k, "is not allowed in a job hook's pod")
				continue
			}
			walkAllowed(m[k], sub, at+"."+k, bad)
		}
	case each:
		list, _ := v.([]any)
		for i, e := range list {
			walkAllowed(e, r.of, fmt.Sprintf("%s[%d]", at, i), bad)
		}
	case listOf:
		list, _ := v.([]any)
		for i, e := range list {
			walkAllowed(e, r.rule, fmt.Sprintf("%s[%d]", at, i), bad)
		}
	}
}

// restricted checks pod against the allowlist again (a plan is not trusted: the parser
// refused those fields already) and sets what Pod Security's restricted level asks that the
// spec left unset: the runtime's default seccomp profile, no privilege escalation, every
// capability dropped, and a non-root user.
func restricted(pod *corev1.PodSpec) error {
	var refused []string
	b, err := json.Marshal(pod)
	var v map[string]any
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		return fmt.Errorf("not run: the pod does not encode: %w", err)
	}
	walkAllowed(v, podFields, "spec.template.spec", func(at, what string) { refused = append(refused, at+": "+what) })
	if privileged(pod) {
		refused = append(refused, "spec.template.spec: asks for the node's namespaces, a node, a host path or a privileged container")
	}
	if len(refused) > 0 {
		return fmt.Errorf("not run: %s (fix: let the parent render the plan again with a sidecar of the agent's version)", refused[0])
	}
	if pod.SecurityContext == nil {
		pod.SecurityContext = &corev1.PodSecurityContext{}
	}
	psc := pod.SecurityContext
	if psc.SeccompProfile == nil {
		psc.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	}
	if psc.RunAsNonRoot == nil && psc.RunAsUser == nil {
		psc.RunAsNonRoot = ptr(true)
	}
	for _, cs := range [][]corev1.Container{pod.InitContainers, pod.Containers} {
		for i := range cs {
			restrictContainer(&cs[i])
		}
	}
	return nil
}

// restrictContainer sets a container's unset privileges to restricted's (no escalation)
// and drops every capability whatever the spec's drop list says: a list without ALL
// ([NET_RAW]) kept the runtime's defaults. What the spec adds stays (the allowlist lets it
// add NET_BIND_SERVICE only, which restricted permits with ALL dropped).
func restrictContainer(c *corev1.Container) {
	if c.SecurityContext == nil {
		c.SecurityContext = &corev1.SecurityContext{}
	}
	sc := c.SecurityContext
	if sc.AllowPrivilegeEscalation == nil {
		sc.AllowPrivilegeEscalation = ptr(false)
	}
	if sc.Capabilities == nil {
		sc.Capabilities = &corev1.Capabilities{}
	}
	sc.Capabilities.Drop = []corev1.Capability{"ALL"}
}

func ptr[T any](v T) *T { return &v }

// privileged reports what checkPodPrivileges refuses with its own messages at parse time:
// the node's namespaces, a chosen node, a host path, a privileged or escalating container.
func privileged(pod *corev1.PodSpec) bool {
	if pod.HostNetwork || pod.HostPID || pod.HostIPC || pod.NodeName != "" {
		return true
	}
	for _, v := range pod.Volumes {
		if v.HostPath != nil {
			return true
		}
	}
	for _, cs := range [][]corev1.Container{pod.InitContainers, pod.Containers} {
		for _, c := range cs {
			if sc := c.SecurityContext; sc != nil && (sc.Privileged != nil && *sc.Privileged || sc.AllowPrivilegeEscalation != nil && *sc.AllowPrivilegeEscalation) {
				return true
			}
		}
	}
	return false
}
