package spec

import (
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Limits from seed 000 that hold for every kind (a kind's own are in its file).
const (
	DefaultHookTimeout = 5 * time.Minute
	MaxHooksPerList    = 50
)

// hooks reads one list of a phase: its pre-hooks, checks (check) or post-hooks.
func (d *dec) hooks(n *yaml.Node, path string, check bool) []Hook {
	var out []Hook
	seen := map[string]bool{}
	items := d.seq(n, path)
	if len(items) > MaxHooksPerList {
		d.fail(n, path, "split the work across phases", "has %d entries, over the limit of %d", len(items), MaxHooksPerList)
		return nil
	}
	for i, hn := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		h := d.hook(hn, p, check)
		if h.Name != "" && seen[h.Name] {
			d.fail(hn, p+".name", "give every hook in a list its own name", "duplicate name %q", h.Name)
		}
		seen[h.Name] = true
		out = append(out, h)
	}
	return out
}

// hook reads the fields every kind shares, then has the kind its type names read its block.
func (d *dec) hook(n *yaml.Node, path string, check bool) Hook {
	kinds := hookKindNames()
	f := d.fields(n, path, append([]string{"name", "type", "timeout", "failurePolicy", "retryFor", "during"}, kinds...)...)
	h := Hook{
		Name:          d.str(d.required(f, n, path, "name", "name the hook"), path+".name"),
		Type:          d.oneOf(d.required(f, n, path, "type", "write type: "+strings.Join(kinds, " or type: ")), path+".type", "", kinds...),
		Timeout:       d.duration(f["timeout"], path+".timeout", DefaultHookTimeout),
		FailurePolicy: d.failurePolicy(f["failurePolicy"], path+".failurePolicy"),
	}
	if h.Timeout == 0 {
		d.fail(f["timeout"], path+".timeout", "use a positive duration", "must be positive")
	}
	h.RetryFor = d.retryFor(f["retryFor"], path+".retryFor", h.FailurePolicy)
	k, ok := HookKindOf(h.Type)
	if !ok {
		return h
	}
	for _, other := range kinds {
		if other != h.Type && f[other] != nil {
			d.fail(f[other], path+"."+other, "remove it or use type: "+other, "type %s takes the %s block, not %s", h.Type, h.Type, other)
		}
	}
	d.refuseDuring(f, path, k)
	r := &HookReader{d: d, h: hookNode{node: n, fields: f, path: path, check: check}, kind: h.Type, lines: map[string]int{}}
	h.Block = k.Parse(r)
	for _, name := range h.Placeholders() {
		if problem := HookVarProblem(name); problem != "" {
			d.fail(f[h.Type], path+"."+h.Type, HookVarFix, "%s", problem)
		}
	}
	d.site(n, f, path, h, r.lines) // its limits are the installation's: CheckLimits, not the parser
	return h
}

// refuseDuring refuses `during` in a hook of a kind without the DuringSoak trait, naming
// the kinds that have it.
func (d *dec) refuseDuring(f map[string]*yaml.Node, path string, k HookKind) {
	if n := f["during"]; n != nil && !k.Traits().DuringSoak {
		var soaking []string
		for _, other := range hookKinds {
			if other.Traits().DuringSoak {
				soaking = append(soaking, other.Name())
			}
		}
		d.fail(n, path+".during", "remove it: only a "+strings.Join(soaking, " or ")+" check is measured through the soak", "type %s has no during", k.Name())
	}
}

// soakChecks refuses a check measured through the soak in a phase without one.
func (d *dec) soakChecks(p Phase, checks *yaml.Node, path string) {
	if p.WaitDuration > 0 {
		return
	}
	items := d.seq(checks, path)
	for i, h := range p.Checks {
		if h.DuringSoak() && i < len(items) {
			d.fail(items[i], fmt.Sprintf("%s[%d].during", path, i), "give the phase a waitDuration, or remove during: soak", "the phase has no soak to measure through")
		}
	}
}

// retryFor reads a hook's retryFor: a positive duration of at most MaxRetryFor, and only
// with failurePolicy: retry (it would say nothing under another policy).
func (d *dec) retryFor(n *yaml.Node, path, policy string) time.Duration {
	if n == nil {
		return 0
	}
	v := d.duration(n, path, 0)
	switch {
	case policy != FailurePolicyRetry:
		d.fail(n, path, "remove it, or set failurePolicy: retry", "applies only with failurePolicy: retry")
	case v <= 0 || v > MaxRetryFor:
		d.fail(n, path, "use a duration such as 15m", "must be positive and at most %s", Short(MaxRetryFor))
	}
	return v
}

// Retry time: how long failurePolicy: retry retries a hook from its run's start unless its
// retryFor says otherwise, and the most a retryFor may say.
const (
	DefaultRetryFor = 10 * time.Minute
	MaxRetryFor     = 24 * time.Hour
)

// failureHooks reads a rollout's onFailure (next to phases, or in spec.strategy): its
// stopHooks, rollbackHooks and rolledBackHooks.
func (d *dec) failureHooks(n *yaml.Node, path string) FailureHooks {
	if n == nil {
		return FailureHooks{}
	}
	f := d.fields(n, path, "stopHooks", "rollbackHooks", "rolledBackHooks")
	out := FailureHooks{
		Stop:       d.failureList(f["stopHooks"], path+".stopHooks"),
		Rollback:   d.failureList(f["rollbackHooks"], path+".rollbackHooks"),
		RolledBack: d.failureList(f["rolledBackHooks"], path+".rolledBackHooks"),
	}
	if n.Kind == yaml.MappingNode && len(n.Content) == 0 {
		d.fail(n, path, "list stopHooks, rollbackHooks or rolledBackHooks, or remove it", "is empty")
	}
	return out
}

// Empty reports whether f holds no hook.
func (f FailureHooks) Empty() bool {
	return len(f.Stop) == 0 && len(f.Rollback) == 0 && len(f.RolledBack) == 0
}

// failureList reads a list of failure or post-delete hooks: hooks as any other, but
// failurePolicy abort is refused (a rollout that failed, or whose children are gone, has
// nothing left to abort; these hooks decide nothing).
func (d *dec) failureList(n *yaml.Node, path string) []Hook {
	hs := d.hooks(n, path, false)
	items := d.seq(n, path)
	for i, h := range hs {
		if h.FailurePolicy == FailurePolicyAbort && i < len(items) {
			d.fail(items[i], fmt.Sprintf("%s[%d].failurePolicy", path, i), "use fail, ignore or retry",
				"a failure hook decides nothing, so abort has nothing to stop")
		}
	}
	return hs
}
