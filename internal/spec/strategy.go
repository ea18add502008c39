package spec

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

var phaseName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// strategy fills s.Dialect and s.Phases from generators[].deploymentStrategy,
// spec.strategy, or both composed (see compose); with neither, the spec rolls out all at
// once in one phase.
func (d *dec) strategy(s *Spec, st *yaml.Node, gen *yaml.Node, genPath string, exprs *targets.Cache) {
	switch {
	case gen != nil && st != nil:
		d.compose(s, st, gen, genPath, exprs) // the steps order the children, the phases within each step
	case gen != nil:
		d.phaseDeployment(s, gen, genPath, exprs)
	case st != nil:
		d.rolling(s, st, exprs)
		for i, p := range s.Phases {
			if p.BatchChecks {
				d.fail(st, fmt.Sprintf("spec.strategy.%s.steps[%d].batchChecks", strings.ToLower(string(s.Dialect[:1]))+string(s.Dialect[1:]), i),
					"compose the steps with a generator's phases that have checks, or remove it", "a step has no checks of its own to run between its batches")
			}
		}
	default:
		s.Dialect, s.LateJoiners, s.PinCommits = DialectAllAtOnce, LateJoinersDefer, true
		s.Phases = []Phase{{Name: "all", Size: Size{Kind: SizeAll}, OnFailure: "stop"}}
	}
}

func (d *dec) phaseDeployment(s *Spec, n *yaml.Node, path string, exprs *targets.Cache) {
	f := d.fields(n, path, "type", "phases", "lateJoiners", "pinCommits", "confirmRemoval", "maxFailures", "windows", "onFailure", "postDeleteHooks")
	s.MaxFailures = d.budget(f["maxFailures"], path+".maxFailures")
	s.PostDeleteHooks = d.failureList(f["postDeleteHooks"], path+".postDeleteHooks")
	s.OnFailure = d.failureHooks(f["onFailure"], path+".onFailure")
	s.Windows = d.windows(f["windows"], path+".windows")
	s.LateJoiners = d.lateJoiners(f["lateJoiners"], path+".lateJoiners")
	s.PinCommits = d.pinCommits(f["pinCommits"], path+".pinCommits")
	s.ConfirmRemoval = d.boolean(f["confirmRemoval"], path+".confirmRemoval")
	if t := d.str(d.required(f, n, path, "type", "write type: phaseDeployment"), path+".type"); t != "phaseDeployment" && t != "" {
		d.fail(f["type"], path+".type", "write type: phaseDeployment", "unknown strategy type %q", t)
	}
	s.Dialect = DialectPhaseDeployment
	seen, split := map[string]bool{}, ""
	for i, pn := range d.seq(d.required(f, n, path, "phases", "list at least one phase"), path+".phases") {
		p := d.phase(pn, fmt.Sprintf("%s.phases[%d]", path, i), exprs)
		d.oneSplit(pn, fmt.Sprintf("%s.phases[%d]", path, i), p, &split)
		if seen[p.Name] {
			d.fail(pn, fmt.Sprintf("%s.phases[%d].name", path, i), "give every phase its own name", "duplicate phase name %q", p.Name)
		}
		seen[p.Name] = true
		s.Phases = append(s.Phases, p)
	}
	if f["phases"] != nil && len(s.Phases) == 0 {
		d.fail(f["phases"], path+".phases", "list at least one phase", "is empty")
	}
}

func (d *dec) phase(n *yaml.Node, path string, exprs *targets.Cache) Phase {
	f := d.fields(n, path, "name", "targets", "percentage", "maxUpdate", "preHooks", "postHooks", "checks", "waitDuration", "onFailure", "progressDeadline", "maxFailures", "order", "spread", "approval", "windows", "tracks", "batchSize", "batchWait", "batchChecks")
	p := Phase{Name: d.str(d.required(f, n, path, "name", "name the phase"), path+".name"), OnFailure: "stop"}
	if p.Name != "" && !phaseName.MatchString(p.Name) {
		d.fail(f["name"], path+".name", "use lowercase letters, digits and '-', at most 63", "invalid phase name %q", p.Name)
	}
	for i, tn := range d.seq(d.required(f, n, path, "targets", "list the clusters this phase selects"), path+".targets") {
		p.Targets = append(p.Targets, d.target(tn, fmt.Sprintf("%s.targets[%d]", path, i), exprs))
	}
	p.Size = d.size(f, n, path)
	p.PreHooks = d.hooks(f["preHooks"], path+".preHooks", false)
	p.PostHooks = d.hooks(f["postHooks"], path+".postHooks", false)
	p.Checks = d.hooks(f["checks"], path+".checks", true)
	p.WaitDuration = d.duration(f["waitDuration"], path+".waitDuration", 0)
	d.soakChecks(p, f["checks"], path+".checks")
	if of := f["onFailure"]; of != nil {
		ff := d.fields(of, path+".onFailure", "action", "hooks")
		p.OnFailure = d.oneOf(ff["action"], path+".onFailure.action", "stop", "stop", "rollback", "continue")
		p.FailureHooks = d.failureList(ff["hooks"], path+".onFailure.hooks")
		if p.OnFailure == "continue" && len(p.FailureHooks) > 0 {
			d.fail(ff["hooks"], path+".onFailure.hooks", "remove them, or use action: stop or rollback",
				"action continue never fails the phase, so its failure hooks would never run")
		}
	}
	d.limits(&p, f, path)
	d.waves(&p, f, path)
	p.Ordering = d.ordering(f, path, exprs)
	d.approval(&p, f["approval"], path)
	p.Windows = d.windows(f["windows"], path+".windows")
	p.Tracks = d.tracks(f, path, exprs)
	return p
}

// limits reads the extensions progressDeadline and maxFailures, in both dialects.
func (d *dec) limits(p *Phase, f map[string]*yaml.Node, path string) {
	p.ProgressDeadline = d.deadline(f["progressDeadline"], path+".progressDeadline")
	if v, ok := d.integer(f["maxFailures"], path+".maxFailures"); ok {
		if v < 0 {
			d.fail(f["maxFailures"], path+".maxFailures", "use 0 or more", "out of range: %d", v)
		}
		p.MaxFailures = max(v, 0)
	}
}

// deadline reads a progressDeadline: a Go duration, or "none" to wait without a bound
// (NoDeadline); unset is 0, the engine's default.
func (d *dec) deadline(n *yaml.Node, path string) time.Duration {
	if n != nil && n.Kind == yaml.ScalarNode && n.Value == DeadlineNone {
		return NoDeadline
	}
	if n != nil && n.Kind == yaml.ScalarNode && isZero(n.Value) {
		d.fail(n, path, `leave it out for the default (10m), or write "none" to wait without a bound`, "a progressDeadline of %q ends nothing", n.Value)
		return 0
	}
	return d.duration(n, path, 0)
}

// isZero reports whether s is a Go duration of zero.
func isZero(s string) bool {
	v, err := time.ParseDuration(s)
	return err == nil && v == 0
}

// pinCommits reads the extension pinCommits (default true).
func (d *dec) pinCommits(n *yaml.Node, path string) bool {
	return n == nil || d.boolean(n, path)
}

func (d *dec) lateJoiners(n *yaml.Node, path string) string {
	return d.oneOf(n, path, LateJoinersDefer, LateJoinersDefer, LateJoinersJoin)
}

// size reads percentage or maxUpdate (mutually exclusive) of a phaseDeployment phase.
func (d *dec) size(f map[string]*yaml.Node, n *yaml.Node, path string) Size {
	pct, mu := f["percentage"], f["maxUpdate"]
	if pct != nil && mu != nil {
		d.fail(n, path, "keep one of them", "percentage and maxUpdate are mutually exclusive")
		return Size{Kind: SizeAll}
	}
	if pct != nil {
		v, ok := d.integer(pct, path+".percentage")
		if ok && (v < 0 || v > 100) {
			d.fail(pct, path+".percentage", "use 0 to 100", "out of range: %d", v)
		}
		if v >= 100 {
			return Size{Kind: SizeAll}
		}
		return Size{Kind: SizePercent, Value: v}
	}
	if mu != nil {
		return d.intOrPercent(mu, path+".maxUpdate", false)
	}
	return Size{Kind: SizeAll}
}

// intOrPercent parses maxUpdate: an integer or "N%". zeroIsGate makes 0 a manual gate
// (RollingSync, seed 003); otherwise 0 means no bound (RollingUpdate, seed 001).
func (d *dec) intOrPercent(n *yaml.Node, path string, zeroIsGate bool) Size {
	v := strings.TrimSpace(n.Value)
	if n.Kind != yaml.ScalarNode {
		d.fail(n, path, `write a number or a percentage such as "25%"`, "must be an integer or a percentage")
		return Size{Kind: SizeAll}
	}
	if num, ok := strings.CutSuffix(v, "%"); ok {
		p, err := strconv.Atoi(num)
		if err != nil || p < 0 || p > 100 {
			d.fail(n, path, `write a percentage from "0%" to "100%"`, "invalid percentage %q", v)
			return Size{Kind: SizeAll}
		}
		if p == 0 && zeroIsGate {
			return Size{Kind: SizeCount, Gate: true}
		}
		if p == 0 || p == 100 {
			return Size{Kind: SizeAll}
		}
		return Size{Kind: SizePercent, Value: p}
	}
	c, err := strconv.Atoi(v)
	if err != nil || c < 0 {
		d.fail(n, path, `write a number or a percentage such as "25%"`, "invalid maxUpdate %q", v)
		return Size{Kind: SizeAll}
	}
	if c == 0 {
		if zeroIsGate {
			return Size{Kind: SizeCount, Gate: true}
		}
		return Size{Kind: SizeAll}
	}
	return Size{Kind: SizeCount, Value: c}
}

func (d *dec) target(n *yaml.Node, path string, exprs *targets.Cache) targets.Target {
	f := d.fields(n, path, "clusters", "values", "matchExpressions", "expr")
	t := targets.Target{
		Clusters:         d.strList(f["clusters"], path+".clusters"),
		Values:           d.strMap(f["values"], path+".values"),
		MatchExpressions: d.requirements(f["matchExpressions"], path+".matchExpressions"),
		Expr:             d.str(f["expr"], path+".expr"),
	}
	if err := t.Compile(exprs); err != nil {
		at := n
		if f["expr"] != nil && strings.HasPrefix(err.Error(), "expr:") {
			at, path = f["expr"], path+".expr"
		}
		d.fail(at, path, targets.Fix(err), "%s", err)
	}
	return t
}

func (d *dec) requirements(n *yaml.Node, path string) []targets.Requirement {
	var out []targets.Requirement
	for i, rn := range d.seq(n, path) {
		p := fmt.Sprintf("%s[%d]", path, i)
		f := d.fields(rn, p, "key", "operator", "values")
		out = append(out, targets.Requirement{
			Key:      d.str(d.required(f, rn, p, "key", "name a label key"), p+".key"),
			Operator: d.str(d.required(f, rn, p, "operator", "use In, NotIn, Exists or DoesNotExist"), p+".operator"),
			Values:   d.strList(f["values"], p+".values"),
		})
	}
	return out
}

// rolling parses spec.strategy: RollingSync (seed 003), RollingUpdate (seed 001), AllAtOnce.
func (d *dec) rolling(s *Spec, n *yaml.Node, exprs *targets.Cache) {
	f := d.fields(n, "spec.strategy", "type", "rollingSync", "rollingUpdate", "deletionOrder", "lateJoiners", "pinCommits", "confirmRemoval", "maxFailures", "windows", "onFailure", "postDeleteHooks")
	s.MaxFailures = d.budget(f["maxFailures"], "spec.strategy.maxFailures")
	s.PostDeleteHooks = d.failureList(f["postDeleteHooks"], "spec.strategy.postDeleteHooks")
	s.OnFailure = d.failureHooks(f["onFailure"], "spec.strategy.onFailure")
	s.Windows = d.windows(f["windows"], "spec.strategy.windows")
	s.LateJoiners = d.lateJoiners(f["lateJoiners"], "spec.strategy.lateJoiners")
	s.PinCommits = d.pinCommits(f["pinCommits"], "spec.strategy.pinCommits")
	s.ConfirmRemoval = d.boolean(f["confirmRemoval"], "spec.strategy.confirmRemoval")
	t := d.oneOf(d.required(f, n, "spec.strategy", "type", "write type: RollingSync"), "spec.strategy.type", "AllAtOnce", "AllAtOnce", "RollingSync", "RollingUpdate")
	s.Dialect = Dialect(t)
	s.DeletionOrder = d.deletionOrder(f["deletionOrder"], t)
	if t == "AllAtOnce" {
		s.Phases = []Phase{{Name: "all", Size: Size{Kind: SizeAll}, OnFailure: "stop"}}
		return
	}
	key := "rollingSync"
	if t == "RollingUpdate" {
		key = "rollingUpdate"
	}
	path := "spec.strategy." + key
	body := d.fields(f[key], path, "steps")
	if f[key] == nil || body["steps"] == nil {
		// seeds 001 and 003: the steps may be left out; every child is updated together, in
		// name order, as one step
		s.Phases = []Phase{{Name: "all", Size: Size{Kind: SizeAll}, OnFailure: "stop"}}
		d.reverseNeedsSteps(s, f["deletionOrder"], 0)
		return
	}
	steps := d.seq(body["steps"], path+".steps")
	if len(steps) == 0 {
		d.fail(body["steps"], path+".steps", "list at least one step, or leave "+key+" out to update every child together", "is empty")
	}
	for i, sn := range steps {
		p := fmt.Sprintf("%s.steps[%d]", path, i)
		sf := d.fields(sn, p, "matchExpressions", "maxUpdate", "progressDeadline", "maxFailures", "order", "spread", "batchWait", "batchChecks")
		ph := Phase{Name: fmt.Sprintf("step-%d", i+1), MatchAppLabels: true, OnFailure: "stop", Size: Size{Kind: SizeAll}}
		reqs := d.requirements(sf["matchExpressions"], p+".matchExpressions")
		if len(reqs) > 0 {
			ph.Targets = []targets.Target{{MatchExpressions: reqs}}
			if err := ph.Targets[0].Compile(nil); err != nil {
				d.fail(sn, p+".matchExpressions", "correct the requirement: a key, an operator (In, NotIn, Exists, DoesNotExist) and values for In and NotIn", "%s", err)
			}
		}
		if mu := sf["maxUpdate"]; mu != nil {
			ph.Size = d.intOrPercent(mu, p+".maxUpdate", t == "RollingSync")
		}
		d.limits(&ph, sf, p)
		ph.BatchWait = d.batchWait(sf["batchWait"], p+".batchWait")
		ph.BatchChecks = d.boolean(sf["batchChecks"], p+".batchChecks")
		ph.Ordering = d.ordering(sf, p, exprs)
		s.Phases = append(s.Phases, ph)
	}
	d.reverseNeedsSteps(s, f["deletionOrder"], len(steps))
}

// deletionOrder reads spec.strategy.deletionOrder: AllAtOnce (seed 003's default) or
// Reverse, which seed 003 allows only with type RollingSync and its steps (Argo CD ignores
// it otherwise and deletes all at once; cmp-phase refuses rather than guess).
func (d *dec) deletionOrder(n *yaml.Node, typ string) string {
	o := d.oneOf(n, "spec.strategy.deletionOrder", DeletionAllAtOnce, DeletionAllAtOnce, DeletionReverse)
	if o == DeletionReverse && typ != "RollingSync" {
		d.fail(n, "spec.strategy.deletionOrder", "use type: RollingSync with rollingSync.steps, or deletionOrder: AllAtOnce",
			"Reverse needs type: RollingSync (seed 003), not %s", typ)
	}
	return o
}

// reverseNeedsSteps refuses deletionOrder: Reverse over no steps (seed 003: "requires
// rollingSync.steps to be defined"): there is no order to reverse.
func (d *dec) reverseNeedsSteps(s *Spec, n *yaml.Node, steps int) {
	if s.DeletionOrder == DeletionReverse && steps == 0 {
		d.fail(n, "spec.strategy.deletionOrder", "list rollingSync.steps, or use deletionOrder: AllAtOnce", "Reverse needs rollingSync.steps (seed 003)")
	}
}

// batchWait reads a step's extension batchWait: a positive duration.
func (d *dec) batchWait(n *yaml.Node, path string) time.Duration {
	if n == nil {
		return 0
	}
	v := d.duration(n, path, 0)
	if v <= 0 {
		d.fail(n, path, "use a duration such as 5m, or leave it out", "must be positive")
	}
	return v
}
