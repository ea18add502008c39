package spec

import (
	"net/url"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// HookReader is what a kind's Parse reads its block with: the hook it sits in, and the
// decoder's primitives, each reporting a problem with its line and field path (and the
// fix) instead of stopping at the first. It is only valid during the Parse call.
type HookReader struct {
	d    *dec
	h    hookNode
	kind string
	// lines are the lines of the fields a limit bounds (Violation.Field → line), for
	// CheckLimits to locate a violation like a parse error.
	lines map[string]int
}

// Path is the hook's field path, e.g. spec.strategy.phases[0].checks[1].
func (r *HookReader) Path() string { return r.h.path }

// Check reports whether the hook is a check (else a pre- or post-hook).
func (r *HookReader) Check() bool { return r.h.check }

// Field is one of the hook's own fields (type, during, …, or the kind's block), nil when
// absent.
func (r *HookReader) Field(name string) *yaml.Node { return r.h.fields[name] }

// Block is the kind's block of the hook, reporting it missing (with fix) when it is.
func (r *HookReader) Block(fix string) *yaml.Node {
	return r.d.required(r.h.fields, r.h.node, r.h.path, r.kind, fix)
}

// Mark records where field (relative to the hook, as a Violation names it: http.headers)
// was read, so a limit over it is reported on its line.
func (r *HookReader) Mark(field string, n *yaml.Node) {
	if n != nil {
		r.lines[field] = n.Line
	}
}

// Fail reports a problem at n (its line) and path, with the fix.
func (r *HookReader) Fail(n *yaml.Node, path, fix, format string, args ...any) {
	r.d.fail(n, path, fix, format, args...)
}

// Fields returns mapping n's values by key, reporting keys outside allowed.
func (r *HookReader) Fields(n *yaml.Node, path string, allowed ...string) map[string]*yaml.Node {
	return r.d.fields(n, path, allowed...)
}

// Required is m[key], reporting it missing from parent (with fix) when it is.
func (r *HookReader) Required(m map[string]*yaml.Node, parent *yaml.Node, path, key, fix string) *yaml.Node {
	return r.d.required(m, parent, path, key, fix)
}

// Str reads a string ("" when n is nil).
func (r *HookReader) Str(n *yaml.Node, path string) string { return r.d.str(n, path) }

// Boolean reads a boolean (false when n is nil).
func (r *HookReader) Boolean(n *yaml.Node, path string) bool { return r.d.boolean(n, path) }

// Integer reads an integer; false when n is nil or not one.
func (r *HookReader) Integer(n *yaml.Node, path string) (int, bool) { return r.d.integer(n, path) }

// StrList reads a list of strings.
func (r *HookReader) StrList(n *yaml.Node, path string) []string { return r.d.strList(n, path) }

// StrMap reads a mapping of strings to strings.
func (r *HookReader) StrMap(n *yaml.Node, path string) map[string]string { return r.d.strMap(n, path) }

// Seq reads a sequence's items.
func (r *HookReader) Seq(n *yaml.Node, path string) []*yaml.Node { return r.d.seq(n, path) }

// Duration reads a duration, def when n is nil.
func (r *HookReader) Duration(n *yaml.Node, path string, def time.Duration) time.Duration {
	return r.d.duration(n, path, def)
}

// OneOf reads a string that must be one of allowed, def when n is nil.
func (r *HookReader) OneOf(n *yaml.Node, path, def string, allowed ...string) string {
	return r.d.oneOf(n, path, def, allowed...)
}

// DecodeAsKubectl decodes n into v as kubectl would (strict, Kubernetes' JSON tags).
func (r *HookReader) DecodeAsKubectl(n *yaml.Node, path string, v any) {
	r.d.decodeAsKubectl(n, path, v)
}

// ValidHookURL accepts absolute http(s) URLs; a templated URL ({{name}} and the like) is
// checked for its scheme only, as the rest is known per cluster; one that starts with a
// template (the whole URL from a phase variable) is checked when it runs (the runner
// speaks http and https only). Where a cluster value may go in a URL is the kinds' to
// check (internal/hooks.TemplateProblem refuses it in the scheme, port or host).
func ValidHookURL(s string) bool {
	if strings.HasPrefix(strings.TrimSpace(s), "{{") {
		return true
	}
	if strings.Contains(s, "{{") {
		return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// RefersToSecret reports whether s holds a secret reference ({{.secrets.<name>.<key>}}).
func RefersToSecret(s string) bool { return refersToSecret(s) }

// refersToSecret reports whether s has a placeholder naming a secret, read by the same
// matcher the templating uses (so {{  .secrets.p.k}} and {{\t.secrets.p.k}} count too).
func refersToSecret(s string) bool {
	for _, m := range HookPlaceholder.FindAllStringSubmatch(s, -1) {
		if strings.HasPrefix(strings.TrimSpace(m[1]), ".secrets.") {
			return true
		}
	}
	return false
}

// HookKindDef defines a kind's spec half whose block is a *B: NewHookKind makes it.
type HookKindDef[P HookBlock] struct {
	Name string
	// MaxTimeout is the longest timeout a hook of the kind may ask for when the
	// installation has no setting for it, and TimeoutFix the fix told to one asking more.
	MaxTimeout time.Duration
	TimeoutFix string
	// TimeoutSetting names the installation's setting (a flag, e.g. max-command-timeout)
	// that sets the kind's timeout limit instead, LimitTimeout reading it from Limits;
	// empty: MaxTimeout is fixed.
	TimeoutSetting string
	LimitTimeout   func(Limits) time.Duration
	Traits         HookTraits
	// Parse reads and validates the kind's block through r; nil when it is missing or
	// unusable (having reported why).
	Parse func(r *HookReader) P
}

// NewHookKind makes the spec half of a kind from its definition; its block decodes from
// the plan as JSON into a new B.
func NewHookKind[B any, P blockOf[B]](def HookKindDef[P]) HookKind {
	return &blockKind[B, P]{name: def.Name, maxTimeout: def.MaxTimeout, timeoutFix: def.TimeoutFix, traits: def.Traits, parseBlock: def.Parse,
		setting: def.TimeoutSetting, limit: def.LimitTimeout}
}
