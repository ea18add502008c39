package spec

import (
	"fmt"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Approval is a phase's approval gate (extension `approval`): how many distinct people must
// approve, from which groups, and when they are asked. A RollingSync step's maxUpdate: 0 is
// the same gate with Required 1 and no groups (ApprovalOf).
type Approval struct {
	// Required is how many distinct approvers open the gate (at least 1).
	Required int `json:"required"`
	// Groups: an approver counts only when one of their groups is listed (none: anyone).
	Groups []string `json:"groups,omitempty"`
	// AfterChecks makes it the gate to leave the phase: asked once the phase's members are
	// done, its checks passed, its soak ended and its post-hooks passed; the next phase is
	// admitted only once it opens. Without it, it is the gate to enter the phase (as
	// maxUpdate: 0): nobody of the phase is admitted before it opens.
	AfterChecks bool `json:"afterChecks,omitempty"`
}

// ApprovalOf is the approval gate of a phase: its approval block, else a manual gate
// (maxUpdate: 0) as one approval by anyone, else none.
func ApprovalOf(p Phase) *Approval {
	switch {
	case p.Approval != nil:
		return p.Approval
	case p.Size.Gate:
		return &Approval{Required: 1}
	}
	return nil
}

// approval reads a phase's approval block; an entry gate also gates the phase's size (as
// maxUpdate: 0 does), so admission holds everyone until it opens.
func (d *dec) approval(p *Phase, n *yaml.Node, path string) {
	if n == nil {
		return
	}
	path += ".approval"
	f := d.fields(n, path, "required", "groups", "afterChecks")
	a := &Approval{Required: 1, Groups: d.strList(f["groups"], path+".groups"), AfterChecks: d.boolean(f["afterChecks"], path+".afterChecks")}
	if v, ok := d.integer(f["required"], path+".required"); ok {
		if v < 1 {
			d.fail(f["required"], path+".required", "use 1 or more distinct approvers", "out of range: %d", v)
		}
		a.Required = max(v, 1)
	}
	for i, g := range a.Groups {
		if g == "" || slices.Index(a.Groups, g) != i {
			d.fail(f["groups"], fmt.Sprintf("%s.groups[%d]", path, i), "list each group once, non-empty", "invalid group %q", g)
		}
	}
	if !a.AfterChecks {
		p.Size.Gate = true // nobody is admitted before the gate opens; then the phase's own size
	}
	p.Approval = a
}

// composeApproval checks a composed pair's approval against its step's manual gate
// (maxUpdate: 0, on the step's first pair): with an entry approval the phase's approval is
// the one gate (it asks at least as much); an approval after checks would be a second gate
// on one phase, which is refused.
func (d *dec) composeApproval(p Phase, gen *yaml.Node, path string, k int) {
	if p.Approval != nil && p.Approval.AfterChecks && p.Size.Gate {
		d.fail(gen, path+".approval.afterChecks", "drop afterChecks (the step's gate asks before the phase), or give the step a maxUpdate above 0",
			"spec.strategy step %d has maxUpdate: 0, an approval to enter its first phase; a phase holds one approval gate", k+1)
	}
}
