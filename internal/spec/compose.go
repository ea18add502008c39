package spec

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// compose parses a spec with both spec.strategy (RollingSync or RollingUpdate steps) and a
// generator's deploymentStrategy (phases) and composes them into one phase list, so nothing
// downstream knows there were two: the steps order the children, the phases order within
// each step — step 1 × every phase, then step 2 × every phase, … — as phases named
// "<phase>-step<N>". A child is in the first step whose matchExpressions select its
// Application's labels and, within it, taken by the phases as phaseDeployment takes it.
// spec.strategy AllAtOnce is one step with everything: the phases as declared.
func (d *dec) compose(s *Spec, st, gen *yaml.Node, genPath string, exprs *targets.Cache) {
	var steps Spec
	d.rolling(&steps, st, exprs)
	d.phaseDeployment(s, gen, genPath, exprs)
	s.DeletionOrder = steps.DeletionOrder
	d.composeWindows(s, &steps, st, genPath)
	d.composeOptions(s, &steps, st, gen, genPath)
	if steps.Dialect == DialectAllAtOnce || len(d.errs) > 0 {
		return
	}
	s.Dialect = Dialect(string(steps.Dialect) + "+" + string(DialectPhaseDeployment))
	s.Phases = d.composePhases(steps.Phases, s.Phases, gen, genPath, exprs)
}

// composeWindows adds spec.strategy's windows to the generator's: both apply to the one
// rollout, whose plan names each window once, so a name used in both lists is refused.
func (d *dec) composeWindows(s, steps *Spec, st *yaml.Node, genPath string) {
	gen := map[string]bool{}
	for _, w := range s.Windows {
		gen[w.Name] = true
	}
	for i, wn := range seqOf(valueOf(st, "windows")) {
		if n := valueOf(wn, "name"); n != nil && gen[n.Value] {
			d.fail(n, fmt.Sprintf("spec.strategy.windows[%d].name", i), "rename one of the two windows, or keep it in one list",
				"duplicate window name %q: %s.windows has one too, and both lists apply to the same rollout", n.Value, genPath)
		}
	}
	s.Windows = append(s.Windows, steps.Windows...)
}

// valueOf is mapping n's value of key (nil when n is no mapping or has no such key).
func valueOf(n *yaml.Node, key string) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// seqOf is sequence n's items (none when n is no sequence).
func seqOf(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// composeOptions takes lateJoiners, pinCommits, confirmRemoval, the failure hooks and the rollout-wide
// maxFailures from whichever of the two strategies sets them; set in both, it is an error
// (one rollout, one setting).
func (d *dec) composeOptions(s, steps *Spec, st, gen *yaml.Node, genPath string) {
	for _, key := range []string{"lateJoiners", "pinCommits", "confirmRemoval", "maxFailures", "onFailure", "postDeleteHooks"} {
		if !hasKey(st, key) {
			continue
		}
		if hasKey(gen, key) {
			d.fail(st, "spec.strategy."+key, "keep it in one of the two places",
				"is also set in %s.%s; with both strategies the rollout has one %s", genPath, key, key)
			continue
		}
		switch key {
		case "lateJoiners":
			s.LateJoiners = steps.LateJoiners
		case "pinCommits":
			s.PinCommits = steps.PinCommits
		case "maxFailures":
			s.MaxFailures = steps.MaxFailures
		case "onFailure":
			s.OnFailure = steps.OnFailure
		case "postDeleteHooks":
			s.PostDeleteHooks = steps.PostDeleteHooks
		default:
			s.ConfirmRemoval = steps.ConfirmRemoval
		}
	}
}

// composePhases is every step × every phase, in that order. Each pair:
//   - selects the children its phase's targets select among those in its step (the step's
//     matchExpressions over Application labels, and none of an earlier step's);
//   - admits, like its phase, its percentage / maxUpdate of its members, cumulatively within
//     the step; the step's maxUpdate throttles how many are updating at once, and a
//     RollingSync step's maxUpdate 0 is a manual gate on the step's first pair;
//   - runs its phase's hooks, checks, waitDuration and onFailure;
//   - has the stricter of the step's and the phase's progressDeadline (the shorter one
//     set) and maxFailures (the smaller).
func (d *dec) composePhases(steps, phases []Phase, gen *yaml.Node, genPath string, exprs *targets.Cache) []Phase {
	var out []Phase
	var earlier [][]targets.Requirement
	seen := map[string]bool{}
	for k, step := range steps {
		reqs := stepRequirements(step)
		for i, ph := range phases {
			p := pair(step, ph, k, i == 0)
			d.composeApproval(p, gen, fmt.Sprintf("%s.phases[%d]", genPath, i), k)
			at := fmt.Sprintf("%s.phases[%d].name", genPath, i)
			if !phaseName.MatchString(p.Name) {
				d.fail(gen, at, fmt.Sprintf("shorten the phase name to at most %d characters", 63-len(p.Name)+len(ph.Name)),
					"composed phase name %q (phase %s in spec.strategy step %d) is not a DNS label of at most 63 characters", p.Name, ph.Name, k+1)
			}
			if seen[p.Name] {
				d.fail(gen, at, "rename the phase", "composed phase name %q is used twice", p.Name)
			}
			seen[p.Name] = true
			p.Targets = stepTargets(ph.Targets, reqs, earlier)
			for j := range p.Targets {
				if err := p.Targets[j].Compile(exprs); err != nil {
					d.fail(gen, fmt.Sprintf("%s.phases[%d].targets[%d]", genPath, i, j), targets.Fix(err), "in spec.strategy step %d: %s", k+1, err)
				}
			}
			out = append(out, p)
		}
		earlier = append(earlier, reqs)
	}
	return out
}

// pair is phase ph within step number k (0-based) without its targets; first is the
// step's first phase, which carries the step's manual gate.
func pair(step, ph Phase, k int, first bool) Phase {
	p := ph
	p.Name = fmt.Sprintf("%s-step%d", ph.Name, k+1)
	p.MatchAppLabels = false // within a step, phases share members as phaseDeployment does
	switch {
	case step.Size.Gate && first:
		p.Size.Gate = true // after approval the phase's own size applies
	case !step.Size.Gate && step.Size.Kind != SizeAll:
		p.Throttle = step.Size // the step's batches, else the phase's own batchSize
	}
	p.ProgressDeadline = shorter(ph.ProgressDeadline, step.ProgressDeadline)
	if step.BatchWait > 0 {
		p.BatchWait = step.BatchWait // the step's waves, over its phases' members
	}
	p.BatchChecks = step.BatchChecks || ph.BatchChecks
	p.MaxFailures = min(ph.MaxFailures, step.MaxFailures)
	if p.Ordering.IsZero() {
		p.Ordering = step.Ordering // the phase's order and spread, else its step's
	}
	return p
}

// stepTargets are a phase's targets, each also requiring the step (reqs, and none of the
// earlier steps'); a phase without targets (every child) gets one target: the step.
func stepTargets(phase []targets.Target, reqs []targets.Requirement, earlier [][]targets.Requirement) []targets.Target {
	if len(reqs) == 0 && len(earlier) == 0 {
		return append([]targets.Target(nil), phase...)
	}
	step := func() *targets.Step {
		return &targets.Step{MatchExpressions: reqs, Earlier: append([][]targets.Requirement(nil), earlier...)}
	}
	if len(phase) == 0 {
		return []targets.Target{{Step: step()}}
	}
	out := make([]targets.Target, len(phase))
	for i, t := range phase {
		out[i] = t
		out[i].Step = step()
	}
	return out
}

// stepRequirements are a parsed step's matchExpressions (none: every child).
func stepRequirements(step Phase) []targets.Requirement {
	if len(step.Targets) == 0 {
		return nil
	}
	return step.Targets[0].MatchExpressions
}

// shorter is the shorter of two limits, where 0 (unset) and a negative limit (none, as
// NoDeadline) give way to any set one.
func shorter[T ~int64](a, b T) T {
	switch {
	case a == 0 || a < 0 && b > 0:
		return b
	case b == 0 || b < 0:
		return a
	}
	return min(a, b)
}

// hasKey reports whether mapping n has key.
func hasKey(n *yaml.Node, key string) bool {
	for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}
