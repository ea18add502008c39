package targets

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Subject is what a target is evaluated against: one cluster (or one generated child).
type Subject struct {
	Name        string
	Server      string
	Labels      map[string]string // cluster labels
	Annotations map[string]string // cluster annotations
	Values      map[string]string // generator values / list element fields
	AppLabels   map[string]string // labels of the rendered child Application
	// Seed is what `seed` reads in an expression: the rollout's revision id, so a seeded
	// shuffle (order: shuffle, hash(seed + name)) is the same at every render of a revision.
	Seed string
}

// Requirement is one matchExpressions entry.
type Requirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// Target is one entry of a phase's targets; all of its set fields must match.
type Target struct {
	Clusters         []string          `json:"clusters,omitempty"`
	Values           map[string]string `json:"values,omitempty"`
	MatchExpressions []Requirement     `json:"matchExpressions,omitempty"`
	Expr             string            `json:"expr,omitempty"`
	// Step (set by the parser, never written in a spec) composes the target with a
	// spec.strategy step: see Step.
	Step *Step `json:"step,omitempty"`

	selector labels.Selector
	program  *Program
}

// Selector is a Kubernetes label selector (matchLabels and matchExpressions).
type Selector struct {
	MatchLabels      map[string]string `json:"matchLabels,omitempty"`
	MatchExpressions []Requirement     `json:"matchExpressions,omitempty"`

	selector labels.Selector
}

var operators = map[string]selection.Operator{
	"In": selection.In, "NotIn": selection.NotIn, "Exists": selection.Exists, "DoesNotExist": selection.DoesNotExist,
}

// Compile turns requirements into a selector; errors name the entry index.
func compileRequirements(matchLabels map[string]string, reqs []Requirement) (labels.Selector, error) {
	sel := labels.NewSelector()
	for _, k := range sortedKeys(matchLabels) {
		r, err := labels.NewRequirement(k, selection.Equals, []string{matchLabels[k]})
		if err != nil {
			return nil, fmt.Errorf("matchLabels[%s]: %w", k, err)
		}
		sel = sel.Add(*r)
	}
	for i, q := range reqs {
		op, ok := operators[q.Operator]
		if !ok {
			return nil, fmt.Errorf("matchExpressions[%d].operator: %q is not one of In, NotIn, Exists, DoesNotExist", i, q.Operator)
		}
		if (op == selection.In || op == selection.NotIn) && len(q.Values) == 0 {
			return nil, fmt.Errorf("matchExpressions[%d].values: %s needs at least one value", i, q.Operator)
		}
		if (op == selection.Exists || op == selection.DoesNotExist) && len(q.Values) > 0 {
			return nil, fmt.Errorf("matchExpressions[%d].values: %s takes no values", i, q.Operator)
		}
		r, err := labels.NewRequirement(q.Key, op, q.Values)
		if err != nil {
			return nil, fmt.Errorf("matchExpressions[%d]: %w", i, err)
		}
		sel = sel.Add(*r)
	}
	return sel, nil
}

// Compile validates the selector and prepares it for matching.
func (s *Selector) Compile() error {
	sel, err := compileRequirements(s.MatchLabels, s.MatchExpressions)
	if err != nil {
		return err
	}
	s.selector = sel
	return nil
}

// Matches reports whether the label set matches; an empty selector matches everything.
func (s *Selector) Matches(l map[string]string) bool {
	if s.selector == nil {
		return len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
	}
	return s.selector.Matches(labels.Set(l))
}

// Compile validates the target and compiles its expression through the cache.
func (t *Target) Compile(c *Cache) error {
	if len(t.Clusters) == 0 && len(t.Values) == 0 && len(t.MatchExpressions) == 0 && t.Expr == "" && t.Step == nil {
		return fmt.Errorf("empty target: set clusters, values, matchExpressions or expr")
	}
	sel, err := compileRequirements(nil, t.MatchExpressions)
	if err != nil {
		return err
	}
	t.selector = sel
	if t.Step != nil {
		if err := t.Step.compile(); err != nil {
			return err
		}
	}
	if t.Expr != "" {
		p, err := c.Compile(t.Expr)
		if err != nil {
			return fmt.Errorf("expr: %w", err)
		}
		t.program = p
	}
	return nil
}

// Matches evaluates the target. appLabels selects whether matchExpressions read the child
// Application's labels (RollingSync steps) or the cluster's labels (phaseDeployment).
func (t *Target) Matches(s Subject, appLabels bool) (bool, error) {
	if len(t.Clusters) > 0 && !slices.Contains(t.Clusters, s.Name) {
		return false, nil
	}
	if t.Step != nil && !t.Step.matches(s.AppLabels) {
		return false, nil
	}
	for k, v := range t.Values {
		if got, ok := valueOf(s, k); !ok || got != v {
			return false, nil
		}
	}
	if len(t.MatchExpressions) > 0 {
		l := s.Labels
		if appLabels {
			l = s.AppLabels
		}
		if t.selector == nil || !t.selector.Matches(labels.Set(l)) {
			return false, nil
		}
	}
	if t.program != nil {
		return t.program.Eval(s)
	}
	return true, nil
}

// valueOf looks a key up in the generator values first, then the cluster labels.
func valueOf(s Subject, k string) (string, bool) {
	if v, ok := s.Values[k]; ok {
		return v, true
	}
	v, ok := s.Labels[k]
	return v, ok
}

func sortedKeys(m map[string]string) []string {
	return sets.List(sets.KeySet(m))
}
