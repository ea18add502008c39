package hooks

import (
	"fmt"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// SecretLookup returns the value of key in the Secret name (resolved by the agent from its
// configured namespace).
type SecretLookup func(name, key string) (string, error)

var placeholder = spec.HookPlaceholder

// Template fills the fields the hook's kind templates (spec.HookBlock.Fill: an http hook's
// URL, headers and body, a command's argv and env, …) with vars ({{.appset.name}},
// {{.phase.name}}, and {{name}}, {{server}}, {{metadata.labels.x}}, … for a hook run per
// cluster, spec.Hook.PerCluster) and secret references ({{.secrets.<name>.<key>}}). It returns the filled hook and
// the secret values it used (for redaction); the hook it was given is left as it was. An
// unknown variable or a missing secret is an error that names neither value.
func Template(h spec.Hook, vars map[string]string, secret SecretLookup) (spec.Hook, []string, error) {
	f := &filler{hook: h.Name, vars: vars, secret: secret}
	out := h
	if h.Block != nil {
		out.Block = h.Block.Fill(f.fill)
	}
	return out, f.secrets, f.err
}

// filler fills one hook's fields; the first error stops it.
type filler struct {
	hook    string
	vars    map[string]string
	secret  SecretLookup
	secrets []string // the secret values filled in
	err     error
}

func (f *filler) fill(s string) string {
	if f.err != nil || !strings.Contains(s, "{{") {
		return s
	}
	return placeholder.ReplaceAllStringFunc(s, f.replace)
}

// replace is the value of one placeholder m, or m itself once there is an error.
func (f *filler) replace(m string) string {
	name := placeholder.FindStringSubmatch(m)[1]
	if f.err != nil {
		return m
	}
	if ref, ok := strings.CutPrefix(name, ".secrets."); ok {
		v, err := f.secretValue(name, ref)
		if err != nil {
			f.err = err
			return m
		}
		f.secrets = append(f.secrets, v)
		return v
	}
	v, ok := f.vars[name]
	switch {
	case ok:
		return v
	case spec.ClusterVar(name):
		// a hook naming a cluster field runs per cluster with that cluster's fields; only a
		// field the cluster lacks (a label it does not carry) cannot be filled
		f.err = fmt.Errorf("hook %s: %q has no value for this cluster (fix: give every cluster the phase admits that field, or stop templating the hook with it)", f.hook, name)
	default:
		f.err = fmt.Errorf("hook %s: %s (fix: %s)", f.hook, spec.HookVarProblem(name), spec.HookVarFix)
	}
	return m
}

// secretValue reads the secret reference ref (<name>.<key>) of the placeholder name.
func (f *filler) secretValue(name, ref string) (string, error) {
	secretName, key, found := strings.Cut(ref, ".")
	if !found || f.secret == nil {
		return "", fmt.Errorf("hook %s: secret reference %q must be {{.secrets.<name>.<key>}}", f.hook, name)
	}
	v, err := f.secret(secretName, key)
	if err != nil {
		return "", fmt.Errorf("hook %s: secret %s key %s: %w", f.hook, secretName, key, err)
	}
	return v, nil
}

// PhaseVars are the variables every hook of a phase may use (seed 000's {{.appset.name}}).
func PhaseVars(rollout, namespace, phase string) map[string]string {
	return map[string]string{".appset.name": rollout, ".appset.namespace": namespace, ".phase.name": phase}
}
