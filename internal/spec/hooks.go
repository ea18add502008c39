package spec

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Limits from seed 000 (configurable in the agent; validated here at their defaults).
const (
	DefaultHookTimeout = 5 * time.Minute
	MaxHTTPTimeout     = 10 * time.Minute
	MaxCommandTimeout  = 30 * time.Minute
	MaxHeaders         = 50
	MaxEnvVars         = 100
	MaxHooksPerList    = 50
)

func (d *dec) hooks(n *yaml.Node, path, defaultMethod string) []Hook {
	var out []Hook
	seen := map[string]bool{}
	items := d.seq(n, path)
	if len(items) > MaxHooksPerList {
		d.fail(n, path, "split the work across phases", "has %d entries, over the limit of %d", len(items), MaxHooksPerList)
		return nil
	}
	for i, hn := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		h := d.hook(hn, p, defaultMethod)
		if h.Name != "" && seen[h.Name] {
			d.fail(hn, p+".name", "give every hook in a list its own name", "duplicate name %q", h.Name)
		}
		seen[h.Name] = true
		out = append(out, h)
	}
	return out
}

func (d *dec) hook(n *yaml.Node, path, defaultMethod string) Hook {
	f := d.fields(n, path, "name", "type", "timeout", "failurePolicy", "http", "command")
	h := Hook{
		Name:          d.str(d.required(f, n, path, "name", "name the hook"), path+".name"),
		Type:          d.oneOf(d.required(f, n, path, "type", "write type: http or type: command"), path+".type", "", "http", "command"),
		Timeout:       d.duration(f["timeout"], path+".timeout", DefaultHookTimeout),
		FailurePolicy: d.oneOf(f["failurePolicy"], path+".failurePolicy", "fail", "fail", "ignore", "abort", "retry"),
	}
	if h.Timeout == 0 {
		d.fail(f["timeout"], path+".timeout", "use a positive duration", "must be positive")
	}
	switch h.Type {
	case "http":
		if f["command"] != nil {
			d.fail(f["command"], path+".command", "remove it or use type: command", "type http takes an http block, not command")
		}
		h.HTTP = d.httpHook(d.required(f, n, path, "http", "add http.url"), path+".http", defaultMethod)
		if h.Timeout > MaxHTTPTimeout {
			d.fail(f["timeout"], path+".timeout", "use at most 10m", "%s is over the http limit of %s", h.Timeout, MaxHTTPTimeout)
		}
	case "command":
		if f["http"] != nil {
			d.fail(f["http"], path+".http", "remove it or use type: http", "type command takes a command block, not http")
		}
		h.Command = d.commandHook(d.required(f, n, path, "command", "add command.command"), path+".command")
		if h.Timeout > MaxCommandTimeout {
			d.fail(f["timeout"], path+".timeout", "use at most 30m, or poll from a check", "%s is over the command limit of %s", h.Timeout, MaxCommandTimeout)
		}
	}
	return h
}

func (d *dec) httpHook(n *yaml.Node, path, defaultMethod string) *HTTPHook {
	if n == nil {
		return nil
	}
	f := d.fields(n, path, "url", "method", "headers", "body", "expectedStatus", "insecureSkipVerify")
	h := &HTTPHook{
		URL:     d.str(d.required(f, n, path, "url", "set the URL to call"), path+".url"),
		Method:  d.oneOf(f["method"], path+".method", defaultMethod, "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"),
		Headers: d.strMap(f["headers"], path+".headers"),
		Body:    d.str(f["body"], path+".body"),
	}
	if h.URL != "" && !validURL(h.URL) {
		d.fail(f["url"], path+".url", "write an absolute http:// or https:// URL", "invalid URL %q", h.URL)
	}
	if len(h.Headers) > MaxHeaders {
		d.fail(f["headers"], path+".headers", "send fewer headers", "has %d headers, over the limit of %d", len(h.Headers), MaxHeaders)
	}
	h.ExpectedStatus = 200
	if v, ok := d.integer(f["expectedStatus"], path+".expectedStatus"); ok {
		if v < 100 || v > 599 {
			d.fail(f["expectedStatus"], path+".expectedStatus", "use an HTTP status from 100 to 599", "out of range: %d", v)
		}
		h.ExpectedStatus = v
	}
	h.InsecureSkipVerify = d.boolean(f["insecureSkipVerify"], path+".insecureSkipVerify")
	return h
}

// validURL accepts absolute http(s) URLs; a templated URL ({{name}} and the like) is
// checked for its scheme only, as the rest is known per cluster; one that starts with a
// template (the whole URL from a cluster annotation) is checked when it runs (the runner
// speaks http and https only).
func validURL(s string) bool {
	if strings.HasPrefix(strings.TrimSpace(s), "{{") {
		return true
	}
	if strings.Contains(s, "{{") {
		return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func (d *dec) commandHook(n *yaml.Node, path string) *CommandHook {
	if n == nil {
		return nil
	}
	f := d.fields(n, path, "command", "env")
	c := &CommandHook{
		Command: d.strList(d.required(f, n, path, "command", `list the program and its arguments, e.g. ["./check.sh", "--env", "prod"]`), path+".command"),
		Env:     d.strMap(f["env"], path+".env"),
	}
	if f["command"] != nil && len(c.Command) == 0 {
		d.fail(f["command"], path+".command", "name the program to run", "is empty")
	}
	if len(c.Env) > MaxEnvVars {
		d.fail(f["env"], path+".env", "pass fewer variables", "has %d variables, over the limit of %d", len(c.Env), MaxEnvVars)
	}
	return c
}

// PerCluster reports whether a check runs once per admitted cluster: when any of its fields
// is templated with the cluster ({{name}}, {{server}}, {{metadata.labels.x}}, …); secret
// references ({{.secrets.<name>.<key>}}) and the phase's own ({{.appset.name}}) do not
// count. Otherwise it runs once per phase.
func (h Hook) PerCluster() bool {
	var fields []string
	if h.HTTP != nil {
		fields = append(fields, h.HTTP.URL, h.HTTP.Body)
		for k, v := range h.HTTP.Headers {
			fields = append(fields, k, v)
		}
	}
	if h.Command != nil {
		fields = append(fields, h.Command.Command...)
		for _, v := range h.Command.Env {
			fields = append(fields, v)
		}
	}
	for _, f := range fields {
		for rest := f; ; {
			i := strings.Index(rest, "{{")
			if i < 0 {
				break
			}
			rest = rest[i+2:]
			if !strings.HasPrefix(strings.TrimSpace(rest), ".") { // .secrets.*, .appset.*, .phase.*: not the cluster's
				return true
			}
		}
	}
	return false
}
