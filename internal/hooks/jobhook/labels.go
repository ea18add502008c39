package jobhook

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// A job hook's pod runs in a namespace of the spec's choosing, Argo CD's by default, where
// a pod's labels decide which Services route to it and which NetworkPolicies let it talk:
// a pod labelled app.kubernetes.io/name: argocd-repo-server joins the repo-server's Service
// and is let in and out as the repo-server is. So the pod carries the agent's own labels
// and, of the spec's template labels, only those the operator allows by key
// (--job-allowed-labels, a limit: validate reports it, the agent holds the hook), never a
// reserved one (refused by the parser, and again by the runner when it builds the Job).

// jobPodMeta is the field path, relative to the hook, of a job hook's pod metadata.
const jobPodMeta = "job.spec.template.metadata"

// ReservedLabel says why a label or annotation key may never be set on a job hook's
// pod by a spec, nor allowed by --job-allowed-labels; "" when it may be allowed.
func ReservedLabel(key string) string {
	prefix, name, ok := strings.Cut(strings.ToLower(key), "/")
	if !ok {
		prefix, name = "", prefix
	}
	under := func(domain string) bool { return prefix == domain || strings.HasSuffix(prefix, "."+domain) }
	switch {
	case under("cmp-phase.io"):
		return "is the agent's own (it labels a Job and its pod cmp-phase.io/rollout, /hook and /hook-place)"
	case prefix == "app.kubernetes.io":
		return "is what Argo CD's Services and NetworkPolicies select its pods by (app.kubernetes.io/name: argocd-repo-server)"
	case under("kubernetes.io"), under("k8s.io"), prefix == "" && (name == "job-name" || name == "controller-uid"):
		return "is Kubernetes' own (the Job controller's batch.kubernetes.io/job-name, AppArmor's and seccomp's annotations)"
	case under("argoproj.io"):
		return "is Argo CD's own (argocd.argoproj.io/instance tracks an Application's resources)"
	}
	return ""
}

// checkPodMeta refuses, in a job hook's pod template metadata (meta, read from n), a label
// or annotation key that is reserved or not a valid key. Whether a label is allowed is the
// installation's (Limits.Violations).
func checkPodMeta(r *spec.HookReader, n *yaml.Node, path string, meta *metav1.ObjectMeta) {
	for _, m := range []struct {
		field, fix string
		keys       map[string]string
	}{
		{"labels", "remove it: a job hook's pod carries the agent's labels and, of its own, only keys --job-allowed-labels names, never cmp-phase.io/, app.kubernetes.io/, Kubernetes' or Argo CD's", meta.Labels},
		{"annotations", "remove it: a job hook's pod annotations cannot use cmp-phase.io/, Kubernetes' or Argo CD's keys", meta.Annotations},
	} {
		at := nodeAt(n, "template", "metadata", m.field)
		for _, k := range slices.Sorted(maps.Keys(m.keys)) {
			field := path + "." + m.field + "." + k
			if why := ReservedLabel(k); why != "" {
				r.Fail(keyNode(at, k, n), field, m.fix, "%s", why)
			} else if errs := validation.IsQualifiedName(k); len(errs) > 0 {
				r.Fail(keyNode(at, k, n), field, "use a Kubernetes label key: [prefix/]name", "%s", errs[0])
			}
		}
	}
}

// LabelViolations are the ways a job hook's pod template metadata asks for labels the
// installation does not allow (allowed: --job-allowed-labels) or keys no installation may
// allow, in key order; none when it fits. The limits (Violations) and the runner, building
// the Job, both ask it.
func LabelViolations(h *Block, allowed []string) []spec.Violation {
	var out []spec.Violation
	for _, k := range slices.Sorted(maps.Keys(h.Spec.Template.Labels)) {
		field := jobPodMeta + ".labels." + k
		switch {
		case ReservedLabel(k) != "":
			out = append(out, spec.Violation{Field: field, Msg: ReservedLabel(k), Fix: "remove it"})
		case !slices.Contains(allowed, k):
			list := "none allowed"
			if len(allowed) > 0 {
				list = "allowed: " + strings.Join(allowed, ", ")
			}
			out = append(out, spec.Violation{Field: field, Setting: "--" + spec.FlagJobAllowedLabels,
				Msg: fmt.Sprintf("is not in --%s (%s)", spec.FlagJobAllowedLabels, list),
				Fix: fmt.Sprintf("add %s to --%s on the agent (and for cmp-phase validate), or remove it: a job hook's pod carries only the agent's labels and the allowed ones", k, spec.FlagJobAllowedLabels)})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(h.Spec.Template.Annotations)) {
		if why := ReservedLabel(k); why != "" {
			out = append(out, spec.Violation{Field: jobPodMeta + ".annotations." + k, Msg: why, Fix: "remove it"})
		}
	}
	return out
}

// CheckSettings refuses an allowed key (--job-allowed-labels) that is not a label key or
// is reserved (spec.SettingsChecker).
func (kind) CheckSettings(l spec.Limits) error {
	for _, k := range l.JobLabels {
		if why := ReservedLabel(k); why != "" {
			return fmt.Errorf("--%s: %s %s (fix: remove it from --%s)", spec.FlagJobAllowedLabels, k, why, spec.FlagJobAllowedLabels)
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("--%s: %q: %s (fix: list label keys, [prefix/]name)", spec.FlagJobAllowedLabels, k, errs[0])
		}
	}
	return nil
}

// Violations are the ways the hook asks for more than l allows beyond its timeout: pod
// labels --job-allowed-labels does not allow, or keys no installation may allow
// (LabelViolations).
func (j *Block) Violations(l spec.Limits) []spec.Violation { return LabelViolations(j, l.JobLabels) }

// markPodMeta records the line of each label and annotation key of the pod template in
// the Job's spec sn, where a violation of it is reported.
func markPodMeta(r *spec.HookReader, sn *yaml.Node) {
	for _, field := range []string{"labels", "annotations"} {
		m := nodeAt(sn, "template", "metadata", field)
		for i := 0; m != nil && m.Kind == yaml.MappingNode && i+1 < len(m.Content); i += 2 {
			r.Mark(jobPodMeta+"."+field+"."+m.Content[i].Value, m.Content[i])
		}
	}
}

// nodeAt is the value at keys in mapping n, nil when absent.
func nodeAt(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// keyNode is the key node of key in mapping n, else def (for its line).
func keyNode(n *yaml.Node, key string, def *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return def
}
