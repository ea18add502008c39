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
// cluster, spec.Hook.PerCluster) and secret references ({{.secrets.<name>.<key>}}). A
// cluster value is escaped for where it lands, or refused, as the field's Context says
// (FieldFiller); a hook whose URL host holds a cluster value may send no secret. It
// returns the filled hook and the secret values it used (for redaction); the hook it was
// given is left as it was. An unknown variable, a missing secret or a refused value is an
// error that names no value.
func Template(h spec.Hook, vars map[string]string, secret SecretLookup) (spec.Hook, []string, error) {
	f := &filler{hook: h.Name, vars: vars, secret: secret}
	out := h
	switch b := h.Block.(type) {
	case nil:
	case FieldFiller:
		out.Block = b.FillFields(f.fill)
	default:
		out.Block = b.Fill(func(s string) string { return f.fill(Field{In: Text}, s) })
	}
	if f.err == nil && f.clusterHost != "" && len(f.secrets) > 0 {
		f.err = fmt.Errorf("hook %s: %s: a cluster field sets the host, so the hook may not send a secret (fix: %s)", f.hook, f.clusterHost, urlHostFix)
	}
	return out, f.secrets, f.err
}

// filler fills one hook's fields; the first error stops it.
type filler struct {
	hook        string
	vars        map[string]string
	secret      SecretLookup
	secrets     []string // the secret values filled in
	clusterHost string   // the URL field whose host a cluster value filled, if any
	err         error
}

// fill fills field fd, whose template is s: each placeholder's value, a cluster value
// escaped for where it lands (escape).
func (f *filler) fill(fd Field, s string) string {
	if f.err != nil || !strings.Contains(s, "{{") {
		return s
	}
	if problem, fix := TemplateProblem(fd.In, s); problem != "" {
		f.err = fmt.Errorf("hook %s: %s: %s (fix: %s)", f.hook, fd.Path, problem, fix)
		return s
	}
	t := readTemplate(s)
	authEnd, auth := authorityEnd(t.masked), -1
	var out strings.Builder
	last, at := 0, 0 // in s, in t.masked
	for i, loc := range placeholder.FindAllStringSubmatchIndex(s, -1) {
		lit := s[last:loc[0]]
		if auth < 0 && at+len(lit) > authEnd {
			auth = out.Len() + authEnd - at
		}
		out.WriteString(lit)
		at += len(lit)
		last = loc[1]
		name := s[loc[2]:loc[3]]
		v, ok := f.value(name)
		if !ok {
			return s
		}
		if spec.ClusterVar(name) {
			var err error
			if v, err = escape(fd.In, t, i, out.String(), v); err != nil {
				f.err = fmt.Errorf("hook %s: %s: cluster field {{%s}}: %w", f.hook, fd.Path, name, err)
				return s
			}
			if fd.In == URL && urlPartAt(t.masked[:at]) == inAuthority {
				f.clusterHost = fd.Path
			}
		}
		out.WriteString(v)
	}
	if auth < 0 {
		auth = out.Len() + authEnd - at
	}
	out.WriteString(s[last:])
	filled := out.String()
	if fd.In == URL {
		if err := checkHost(filled, filled[:auth]); err != nil {
			f.err = fmt.Errorf("hook %s: %s: %w", f.hook, fd.Path, err)
			return s
		}
	}
	return filled
}

// value is the value of the placeholder name; false (f.err set) when it has none.
func (f *filler) value(name string) (string, bool) {
	if ref, ok := strings.CutPrefix(name, ".secrets."); ok {
		v, err := f.secretValue(name, ref)
		if err != nil {
			f.err = err
			return "", false
		}
		f.secrets = append(f.secrets, v)
		return v, true
	}
	v, ok := f.vars[name]
	switch {
	case ok:
		return v, true
	case spec.ClusterVar(name):
		// a hook naming a cluster field runs per cluster with that cluster's fields; only a
		// field the cluster lacks (a label it does not carry) cannot be filled
		f.err = fmt.Errorf("hook %s: %q has no value for this cluster (fix: give every cluster the phase admits that field, or stop templating the hook with it)", f.hook, name)
	default:
		f.err = fmt.Errorf("hook %s: %s (fix: %s)", f.hook, spec.HookVarProblem(name), spec.HookVarFix)
	}
	return "", false
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
