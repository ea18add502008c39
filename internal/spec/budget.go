package spec

import (
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// budget reads the rollout-wide maxFailures (extension, next to phases or in spec.strategy):
// a count, or "N%" of every member of the rollout. Absent: SizeAll, no rollout-wide budget.
func (d *dec) budget(n *yaml.Node, path string) Size {
	if n == nil {
		return Size{Kind: SizeAll}
	}
	const fix = `write a number of clusters (3) or a percentage of the rollout's members ("5%")`
	v := strings.TrimSpace(n.Value)
	if n.Kind != yaml.ScalarNode {
		d.fail(n, path, fix, "must be an integer or a percentage")
		return Size{Kind: SizeAll}
	}
	if num, ok := strings.CutSuffix(v, "%"); ok {
		p, err := strconv.Atoi(num)
		if err != nil || p < 0 || p > 100 {
			d.fail(n, path, fix, "invalid percentage %q: use 0%% to 100%%", v)
			return Size{Kind: SizeAll}
		}
		return Size{Kind: SizePercent, Value: p}
	}
	c, err := strconv.Atoi(v)
	if err != nil || c < 0 {
		d.fail(n, path, fix, "invalid maxFailures %q", v)
		return Size{Kind: SizeAll}
	}
	return Size{Kind: SizeCount, Value: c}
}

// Budget is how many failed children the rollout-wide maxFailures b tolerates in a rollout
// of n members: a count as written, a percentage of n floored (5% of 10 is 0), and -1 when
// there is no rollout-wide budget.
func Budget(b Size, n int) int {
	switch b.Kind {
	case SizeCount:
		return b.Value
	case SizePercent:
		return n * b.Value / 100
	}
	return -1
}
