package targets

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
)

// Step is the spec.strategy step (RollingSync / RollingUpdate) a target is composed with
// when a spec has both steps and a generator's phases: the child's Application labels must
// match the step's matchExpressions and no earlier step's, so every child is in one step
// only, the first that selects it (as RollingSync assigns it). The parser sets it; a spec
// never writes it.
type Step struct {
	// MatchExpressions are the step's, over the Application's labels; empty selects every
	// child.
	MatchExpressions []Requirement `json:"matchExpressions,omitempty"`
	// Earlier are the earlier steps' matchExpressions: a child one of them selects is in
	// that step, not this one.
	Earlier [][]Requirement `json:"earlier,omitempty"`

	selector labels.Selector
	earlier  []labels.Selector
}

func (s *Step) compile() error {
	sel, err := compileRequirements(nil, s.MatchExpressions)
	if err != nil {
		return fmt.Errorf("step: %w", err)
	}
	s.selector, s.earlier = sel, nil
	for i, reqs := range s.Earlier {
		e, err := compileRequirements(nil, reqs)
		if err != nil {
			return fmt.Errorf("step: earlier[%d]: %w", i, err)
		}
		s.earlier = append(s.earlier, e)
	}
	return nil
}

// matches reports whether a child with these Application labels is in the step.
func (s *Step) matches(appLabels map[string]string) bool {
	if s.selector == nil || len(s.earlier) != len(s.Earlier) {
		return false // not compiled: fail closed
	}
	set := labels.Set(appLabels)
	for _, e := range s.earlier {
		if e.Matches(set) {
			return false
		}
	}
	return s.selector.Matches(set)
}
