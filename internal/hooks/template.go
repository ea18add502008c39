package hooks

import (
	"fmt"
	"maps"
	"regexp"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// SecretLookup returns the value of key in the Secret name (resolved by the agent from its
// configured namespace).
type SecretLookup func(name, key string) (string, error)

var placeholder = regexp.MustCompile(`\{\{\s*([^{}]+?)\s*\}\}`)

// Template fills a hook's URL, headers, body, argv and env with vars ({{name}}, {{server}},
// {{metadata.labels.x}}, … for a per-cluster check) and secret references
// ({{.secrets.<name>.<key>}}). It returns the filled hook and the secret values it used (for
// redaction). An unknown variable or a missing secret is an error that names neither value.
func Template(h spec.Hook, vars map[string]string, secret SecretLookup) (spec.Hook, []string, error) {
	var secrets []string
	var err error
	fill := func(s string) string {
		if err != nil || !strings.Contains(s, "{{") {
			return s
		}
		return placeholder.ReplaceAllStringFunc(s, func(m string) string {
			name := placeholder.FindStringSubmatch(m)[1]
			if ref, ok := strings.CutPrefix(name, ".secrets."); ok {
				secretName, key, found := strings.Cut(ref, ".")
				if !found || secret == nil {
					err = fmt.Errorf("hook %s: secret reference %q must be {{.secrets.<name>.<key>}}", h.Name, name)
					return m
				}
				v, e := secret(secretName, key)
				if e != nil {
					err = fmt.Errorf("hook %s: secret %s key %s: %w", h.Name, secretName, key, e)
					return m
				}
				secrets = append(secrets, v)
				return v
			}
			v, ok := vars[name]
			switch {
			case ok:
				return v
			case clusterField(name):
				err = fmt.Errorf("hook %s: %q names a cluster, but this hook runs once per phase (fix: make it a check, which runs once per admitted cluster)", h.Name, name)
			default:
				err = fmt.Errorf("hook %s: unknown template variable %q (fix: use .appset.name, .appset.namespace, .phase.name, and in checks name, server, metadata.labels.<key>, metadata.annotations.<key>)", h.Name, name)
			}
			return m
		})
	}
	out := h
	if h.HTTP != nil {
		c := *h.HTTP
		c.URL, c.Body = fill(c.URL), fill(c.Body)
		c.Headers = maps.Clone(c.Headers)
		for k, v := range c.Headers {
			c.Headers[k] = fill(v)
		}
		out.HTTP = &c
	}
	if h.Command != nil {
		c := *h.Command
		c.Command = make([]string, len(h.Command.Command))
		for i, a := range h.Command.Command {
			c.Command[i] = fill(a)
		}
		c.Env = maps.Clone(c.Env)
		for k, v := range c.Env {
			c.Env[k] = fill(v)
		}
		out.Command = &c
	}
	return out, secrets, err
}

func clusterField(name string) bool {
	return name == "name" || name == "server" || name == "project" || strings.HasPrefix(name, "metadata.")
}

// PhaseVars are the variables every hook of a phase may use (seed 000's {{.appset.name}}).
func PhaseVars(rollout, namespace, phase string) map[string]string {
	return map[string]string{".appset.name": rollout, ".appset.namespace": namespace, ".phase.name": phase}
}
