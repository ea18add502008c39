package rollout

import (
	"fmt"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Snapshot returns each phase's members, in the order its batches take them (arrange: its
// order and spread, else sorted by key), from the children taking part in the rollout.
// phaseDeployment phases select by their targets and may share members (seed 000's canary
// then full production); RollingSync/RollingUpdate steps take each child once, in the first
// step that selects it. A phase without targets selects every child.
func Snapshot(phases []spec.Phase, subjects []targets.Child) ([][]string, error) {
	taken := map[string]bool{}
	out := make([][]string, len(phases))
	for i, p := range phases {
		var chosen []targets.Child
		for _, s := range subjects {
			if p.MatchAppLabels && taken[s.Key] {
				continue
			}
			ok, err := selects(p, s)
			if err != nil {
				return nil, fmt.Errorf("phase %s: %w", p.Name, err)
			}
			if ok {
				chosen = append(chosen, s)
				taken[s.Key] = true
			}
		}
		members, err := arrange(&p.Ordering, chosen)
		if err != nil {
			return nil, fmt.Errorf("phase %s: %w", p.Name, err)
		}
		out[i] = members
	}
	return out, nil
}

func selects(p spec.Phase, s targets.Child) (bool, error) {
	if len(p.Targets) == 0 {
		return true, nil
	}
	for i := range p.Targets {
		ok, err := p.Targets[i].Matches(s.Subject, p.MatchAppLabels)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// ToAdmit returns which of a phaseDeployment phase's members to admit now so that, counting
// members already admitted (by this or an earlier phase), Count(size, len(members)) are
// admitted: the first ones in the snapshot's order that are not admitted yet.
func ToAdmit(size spec.Size, members []string, admitted map[string]bool) []string {
	want := Count(size, len(members))
	have := 0
	for _, m := range members {
		if admitted[m] {
			have++
		}
	}
	var out []string
	for _, m := range members {
		if have >= want {
			break
		}
		if !admitted[m] {
			out = append(out, m)
			have++
		}
	}
	return out
}

// NextBatch returns which RollingSync step members to start now: at most Count(size,
// len(members)) may be updating at once; updating is how many are started and not done.
func NextBatch(size spec.Size, members []string, started map[string]bool, updating int) []string {
	room := Count(size, len(members)) - updating
	var out []string
	for _, m := range members {
		if room <= 0 {
			break
		}
		if !started[m] {
			out = append(out, m)
			room--
		}
	}
	return out
}

// describe is a short, stable rendering of a member list for reasons and Events.
func describe(keys []string) string {
	if len(keys) <= 3 {
		return strings.Join(keys, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(keys[:3], ", "), len(keys)-3)
}
