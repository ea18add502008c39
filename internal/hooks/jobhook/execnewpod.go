package jobhook

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// ExecNewPod is seed 004's ExecNewPodAction as a job hook's pod: instead of writing
// job.spec.template, the hook names a workload of the child's destination and one of its
// containers; the run reads that workload in the child's cluster and makes the Job's one
// container from the container's image, env and envFrom, with the hook's command (the
// container's args cleared) and the hook's env added (podFromWorkload says what is taken
// and what is not). It runs only per cluster: the workload is the child's.
type ExecNewPod struct {
	Workload WorkloadRef `json:"workload"`
	// ContainerName is a container of the workload's pod template (not an init container).
	ContainerName string `json:"containerName"`
	// Command is the program and its arguments, as a container's command (no shell).
	Command []string `json:"command"`
	// Env is added to the container's, a variable of the same name replacing its.
	Env []corev1.EnvVar `json:"env,omitempty"`
}

// WorkloadRef names a workload in the Job's namespace (job.namespace, else the child's
// destination namespace) of the child's cluster: an apps/v1 Deployment, StatefulSet or
// DaemonSet.
type WorkloadRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// Workload kinds execNewPod may name, all apps/v1.
const (
	KindDeployment  = "Deployment"
	KindStatefulSet = "StatefulSet"
	KindDaemonSet   = "DaemonSet"
)

// workloadKinds are the kinds execNewPod may name, in the order errors list them.
var workloadKinds = []string{KindDeployment, KindStatefulSet, KindDaemonSet}

// execNewPodFields are the fields of job.execNewPod, for the unknown field's fix.
var execNewPodFields = []string{"workload", "containerName", "command", "env"}

// parseExecNewPod reads job.execNewPod at path: the workload (kind and name), the container,
// the command (required, one argv: no shell) and the env to add (batch/v1 EnvVars, decoded
// strictly).
func parseExecNewPod(r *spec.HookReader, n *yaml.Node, path string) *ExecNewPod {
	f := r.Fields(n, path, execNewPodFields...)
	e := &ExecNewPod{}
	if wn := r.Required(f, n, path, "workload", "name the workload whose container the hook runs: {kind: Deployment, name: web}"); wn != nil {
		e.Workload = parseWorkloadRef(r, wn, path+".workload")
	}
	e.ContainerName = r.Str(r.Required(f, n, path, "containerName", "name the workload's container whose image, env and envFrom the hook's pod takes"), path+".containerName")
	if c := e.ContainerName; c != "" && !strings.Contains(c, "{{") && len(validation.IsDNS1123Label(c)) > 0 {
		r.Fail(f["containerName"], path+".containerName", "use the container's name as its pod template writes it (a DNS label)", "invalid container name %q", c)
	}
	cn := r.Required(f, n, path, "command", "write the program and its arguments, e.g. [bin/rake, db:migrate] (the container's args are not used)")
	e.Command = r.StrList(cn, path+".command")
	if cn != nil && cn.Kind == yaml.SequenceNode && len(e.Command) == 0 {
		r.Fail(cn, path+".command", "write the program and its arguments, e.g. [bin/rake, db:migrate]", "is empty")
	}
	if en := f["env"]; en != nil && en.Kind != yaml.SequenceNode {
		r.Fail(en, path+".env", "write a list of variables: [{name: RAILS_ENV, value: production}]", "must be a list, not %s", spec.DescribeNode(en))
	} else if en != nil && decodeStrict(r, en, path+".env", "core/v1 EnvVar", &e.Env) {
		for i, v := range e.Env {
			if v.Name == "" {
				r.Fail(en, fmt.Sprintf("%s.env[%d].name", path, i), "give every variable a name", "is required")
			}
		}
	}
	return e
}

// parseWorkloadRef reads job.execNewPod.workload: a kind among workloadKinds and a name.
func parseWorkloadRef(r *spec.HookReader, n *yaml.Node, path string) WorkloadRef {
	f := r.Fields(n, path, "kind", "name")
	w := WorkloadRef{
		Kind: r.OneOf(r.Required(f, n, path, "kind", "use one of: "+strings.Join(workloadKinds, ", ")), path+".kind", "", workloadKinds...),
		Name: r.Str(r.Required(f, n, path, "name", "name the workload as its manifest does (metadata.name)"), path+".name"),
	}
	if w.Name != "" && !strings.Contains(w.Name, "{{") && len(validation.IsDNS1123Subdomain(w.Name)) > 0 {
		r.Fail(f["name"], path+".name", "use the workload's metadata.name (a DNS subdomain)", "invalid name %q", w.Name)
	}
	return w
}

// checkExecNewPod refuses, once the whole block is read, what makes execNewPod unusable
// with the rest of it: a job.spec.template too (two pods: write one), and a hook that
// would run once per phase (on the control cluster, where no child's workload is).
func checkExecNewPod(r *spec.HookReader, j *Block, n, sn *yaml.Node, path string) {
	if tn := nodeAt(sn, "template"); tn != nil {
		r.Fail(tn, path+".spec.template", "remove job.spec.template (execNewPod makes the pod from the workload's container; job.spec keeps backoffLimit, activeDeadlineSeconds, ttlSecondsAfterFinished), or remove job.execNewPod",
			"execNewPod and spec.template are two pods for one Job: write one")
	}
	if !(spec.Hook{Block: j}).PerCluster() {
		r.Fail(nodeAt(n, "execNewPod"), path+".execNewPod", "template a cluster field anywhere in the job block, e.g. an env value '{{metadata.labels.env}}' or '{{name}}' (see per cluster in docs/hooks/job.md)",
			"names a workload of the child's destination, so the hook must run once per cluster, in the child's cluster, and it runs once per phase")
	}
}
