package jobhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// MaxJobTimeout is the longest a job hook may wait for its Job; there is no setting for it.
const MaxJobTimeout = time.Hour

// specHalf is `type: job`'s spec half: a Kubernetes Job the agent creates, judged by its
// conditions. Its timeout limit is fixed (MaxJobTimeout).
var specHalf = spec.NewHookKind[Block](spec.HookKindDef[*Block]{
	Name: "job", MaxTimeout: MaxJobTimeout, TimeoutFix: "use at most 1h, or poll a longer Job from a check",
	Parse: parse,
})

// Job hook delete policies, as Argo CD's argocd.argoproj.io/hook-delete-policy (seed 002).
const (
	HookSucceeded      = "HookSucceeded"
	HookFailed         = "HookFailed"
	BeforeHookCreation = "BeforeHookCreation"
)

// minJobTTL is the shortest ttlSecondsAfterFinished: a Job gone sooner could be gone
// before the agent (or the next leader) has read and recorded its outcome.
const minJobTTL = 300

// Block is the job block of a hook: where the Job runs, when it is deleted, and its spec
// (a batch/v1 JobSpec, as in seed 002's resource hooks) — whose pod is either its
// template or, with ExecNewPod, a container of the child's workload (seed 004's).
type Block struct {
	// Namespace is where the Job is created; empty: the agent's for a per-phase Job (on the
	// control cluster), the child's destination namespace for a per-cluster one (in the
	// child's cluster, see Hook.PerCluster).
	Namespace string `json:"namespace,omitempty"`
	// HookDeletePolicy is a comma-separated list of HookSucceeded, HookFailed and
	// BeforeHookCreation (the default), normalised.
	HookDeletePolicy string `json:"hookDeletePolicy"`
	// ExecNewPod, when set, is the pod instead of Spec.Template (which is then empty): a
	// container of a workload in the child's destination, read when the hook runs.
	ExecNewPod *ExecNewPod     `json:"execNewPod,omitempty"`
	Spec       batchv1.JobSpec `json:"spec"`
}

// Deletes reports whether the policy holds p.
func (j *Block) Deletes(p string) bool {
	return slices.Contains(strings.Split(j.HookDeletePolicy, ","), p)
}

// Fill fills the namespace and every string value of the Job's spec (images, commands,
// arguments, env values, names); map keys (label and annotation names) are not values.
// The delete policy is filled too, though the parser lets no placeholder into it.
func (j *Block) Fill(f func(string) string) spec.HookBlock { return j.FillFields(hooks.AnyField(f)) }

// FillFields fills what Fill does: each element of a container's command or args is one
// argv element (hooks.Arg: never an option from a cluster value), every other string is
// filled as written (hooks.Text).
func (j *Block) FillFields(f func(hooks.Field, string) string) spec.HookBlock {
	c := *j
	c.Namespace = f(hooks.Field{Path: "job.namespace", In: hooks.Text}, j.Namespace)
	c.HookDeletePolicy = f(hooks.Field{Path: "job.hookDeletePolicy", In: hooks.Text}, j.HookDeletePolicy)
	c.Spec = *j.Spec.DeepCopy()
	fillJSON(&j.Spec, &c.Spec, "job.spec", f)
	if j.ExecNewPod != nil {
		c.ExecNewPod = &ExecNewPod{}
		fillJSON(j.ExecNewPod, c.ExecNewPod, "job.execNewPod", f)
	}
	return &c
}

// fillJSON sets *out to *in with f applied to every string value of its JSON (fillStrings,
// at path); *out is left as it was should in not round-trip, which a Kubernetes type
// always does.
func fillJSON[T any](in, out *T, path string, f func(hooks.Field, string) string) {
	b, err := json.Marshal(in)
	if err != nil {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if dec.Decode(&tree) != nil {
		return
	}
	if b, err = json.Marshal(fillStrings(tree, path, hooks.Text, f)); err == nil {
		var v T
		if json.Unmarshal(b, &v) == nil {
			*out = v
		}
	}
}

// fillStrings applies f to every string value of a JSON tree at path, each in context
// in; the elements of a command or args list are argv elements.
func fillStrings(v any, path string, in hooks.Context, f func(hooks.Field, string) string) any {
	switch t := v.(type) {
	case string:
		return f(hooks.Field{Path: path, In: in}, t)
	case []any:
		for i := range t {
			t[i] = fillStrings(t[i], fmt.Sprintf("%s[%d]", path, i), in, f)
		}
	case map[string]any:
		for k := range t {
			kin := hooks.Text
			if k == "command" || k == "args" {
				kin = hooks.Arg
			}
			t[k] = fillStrings(t[k], path+"."+k, kin, f)
		}
	}
	return v
}

// parse reads the job block: namespace, hookDeletePolicy and the Job's spec, decoded
// strictly into batch/v1 (an unknown field is an error naming its path), whose pod is its
// template or job.execNewPod's.
func parse(r *spec.HookReader) *Block {
	n := r.Block("add job.spec with a pod template (seed 002's Job spec), or job.execNewPod to run a container of the child's workload (seed 004's)")
	if n == nil {
		return nil
	}
	path := r.Path() + ".job"
	f := r.Fields(n, path, "namespace", "hookDeletePolicy", "execNewPod", "spec")
	j := &Block{Namespace: r.Str(f["namespace"], path+".namespace")}
	if ns := j.Namespace; ns != "" && !strings.Contains(ns, "{{") && len(validation.IsDNS1123Label(ns)) > 0 {
		r.Fail(f["namespace"], path+".namespace", "use a namespace name (a DNS label)", "invalid namespace %q", ns)
	}
	j.HookDeletePolicy = deletePolicy(r, f["hookDeletePolicy"], path+".hookDeletePolicy")
	sn := f["spec"]
	if en := f["execNewPod"]; en != nil {
		j.ExecNewPod = parseExecNewPod(r, en, path+".execNewPod")
	} else {
		sn = r.Required(f, n, path, "spec", "write the Job's spec: template (the pod), backoffLimit, activeDeadlineSeconds, ttlSecondsAfterFinished; or job.execNewPod to run a container of the child's workload")
		markPodMeta(r, sn)
	}
	if sn != nil && jobSpec(r, sn, path+".spec", &j.Spec) {
		checkJobSpec(r, j, sn, path)
	}
	if j.ExecNewPod != nil {
		checkExecNewPod(r, j, n, sn, path)
	}
	for _, name := range (spec.Hook{Block: j}).Placeholders() {
		if strings.HasPrefix(name, ".secrets.") {
			r.Fail(n, path, "reference the Secret from the pod: env[].valueFrom.secretKeyRef (the agent never reads it)",
				"secret reference {{%s}} would write the secret's value into the Job", name)
		}
	}
	return j
}

// checkJobSpec refuses a ttl that could delete the Job before its outcome is recorded
// and, but for execNewPod's (checkExecNewPod), a pod the Job controller would refuse or
// that asks for more than the agent grants.
func checkJobSpec(r *spec.HookReader, j *Block, sn *yaml.Node, path string) {
	if ttl := j.Spec.TTLSecondsAfterFinished; ttl != nil && *ttl < minJobTTL {
		r.Fail(sn, path+".spec.ttlSecondsAfterFinished", "use at least 300, or hookDeletePolicy: HookSucceeded to delete it once its outcome is recorded",
			"%d s could delete the Job before the agent records its outcome", *ttl)
	}
	if j.ExecNewPod != nil {
		return
	}
	checkPod(r, sn, path+".spec.template.spec", &j.Spec.Template.Spec)
	checkPodMeta(r, sn, path+".spec.template.metadata", &j.Spec.Template.ObjectMeta)
}

// deletePolicy reads hookDeletePolicy: comma-separated policies, BeforeHookCreation when
// unset.
func deletePolicy(r *spec.HookReader, n *yaml.Node, path string) string {
	if n == nil {
		return BeforeHookCreation
	}
	allowed := []string{HookSucceeded, HookFailed, BeforeHookCreation}
	var out []string
	for _, p := range strings.Split(r.Str(n, path), ",") {
		p = strings.TrimSpace(p)
		switch {
		case !slices.Contains(allowed, p):
			r.Fail(n, path, "use one or more of "+strings.Join(allowed, ", ")+", comma-separated", "unknown policy %q", p)
		case !slices.Contains(out, p):
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return BeforeHookCreation
	}
	return strings.Join(out, ",")
}

// jobSpec decodes n into js as the API server would, strictly (decodeStrict); it must be
// a mapping.
func jobSpec(r *spec.HookReader, n *yaml.Node, path string, js *batchv1.JobSpec) bool {
	if n.Kind != yaml.MappingNode {
		r.Fail(n, path, "write the Job's spec as a mapping", "must be a mapping, not %s", spec.DescribeNode(n))
		return false
	}
	return decodeStrict(r, n, path, "batch/v1 JobSpec", js)
}

// decodeStrict decodes n into v, a Kubernetes type (typ names it for a fix), as the API
// server would (YAML as kubectl reads it), strictly: an unknown field is an error naming
// its path.
func decodeStrict(r *spec.HookReader, n *yaml.Node, path, typ string, v any) bool {
	b, err := yaml.Marshal(n)
	if err == nil {
		b, err = sigsyaml.YAMLToJSON(b)
	}
	if err != nil {
		r.Fail(n, path, "", "%s", spec.OneLine(err.Error()))
		return false
	}
	strict, err := sigsjson.UnmarshalStrict(b, v)
	if err != nil {
		r.Fail(n, path, "write it as a "+typ, "%s", spec.OneLine(err.Error()))
		return false
	}
	for _, e := range strict {
		field := path
		if fe, ok := e.(sigsjson.FieldError); ok && strings.HasPrefix(fe.FieldPath(), "[") {
			field = path + fe.FieldPath() // an element of a list: env[0].valu
		} else if ok {
			field = spec.JoinPath(path, fe.FieldPath())
		}
		r.Fail(n, field, "remove it or fix its spelling (a "+typ+" field)", "%s", spec.OneLine(e.Error()))
	}
	return len(strict) == 0
}
