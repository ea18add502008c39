package state

import (
	"fmt"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// Placement is where one rollout placed the children it admitted: its phases in order, each
// with the children it admitted first, in admission order. A child keeps the position its
// rollout gave it for as long as it runs that rollout's revision (Positions): a new rollout
// that has not admitted it yet changes nothing it renders.
type Placement struct {
	Revision string        `json:"revision"`
	Phases   []PlacedPhase `json:"phases"`
}

// PlacedPhase is one phase of a Placement.
type PlacedPhase struct {
	Name     string   `json:"name"`
	Children []string `json:"children,omitempty"`
}

// Position is a child's place in the rollout that admitted it at the revision it runs: the
// phase's name, its 1-based index and the rollout's phase count, and the child's 1-based
// rank among the children that phase admitted. Zero: not known (a child deployed before
// positions were kept, or by a state rebuilt from the live children).
type Position struct {
	Phase              string
	Index, Count, Rank int
}

// placementOf is where r placed its admitted children, each under the first phase that
// admitted it.
func placementOf(r *Rollout) Placement {
	out := Placement{Revision: r.Revision, Phases: make([]PlacedPhase, len(r.Phases))}
	seen := map[string]bool{}
	for i, ph := range r.Phases {
		out.Phases[i].Name = ph.Name
		for _, c := range ph.Admitted {
			if !seen[c] {
				seen[c] = true
				out.Phases[i].Children = append(out.Phases[i].Children, c)
			}
		}
	}
	return out
}

// KeepPlacements is called as a new rollout replaces s.Rollout: it keeps where the
// outgoing rollout (and those before it) placed the children that still run their
// revision. A placement is kept whole (a child's rank never shifts) while one of its
// children runs its revision and no newer placement of that revision places it; the others
// are dropped.
func (s *State) KeepPlacements() {
	all := slices.Clone(s.Placed)
	if s.Rollout != nil {
		all = append(all, placementOf(s.Rollout))
	}
	assigned := s.Assignments()
	placed := map[string]bool{} // revision + child, placed by a newer placement
	var kept []Placement
	for i := len(all) - 1; i >= 0; i-- { // newest first
		p, needed := all[i], false
		for _, ph := range p.Phases {
			for _, c := range ph.Children {
				if rev, _, ok := assigned(c); ok && rev == p.Revision && !placed[rev+"\x00"+c] {
					needed = true
				}
				placed[p.Revision+"\x00"+c] = true
			}
		}
		if needed {
			kept = append(kept, p)
		}
	}
	slices.Reverse(kept)
	s.Placed = kept
}

// Positions indexes s and returns each child's position at revision rev: from the rollout
// of rev that admitted it, else from the newest placement kept for rev (KeepPlacements); ok
// is false when neither knows it. Each index is made on its first use, once: a render over
// 10,000 children builds one map.
func (s *State) Positions() func(child, rev string) (Position, bool) {
	var current map[string]Position
	kept := make([]map[string]Position, len(s.Placed))
	return func(child, rev string) (Position, bool) {
		if r := s.Rollout; r != nil && r.Revision == rev {
			if current == nil {
				current = rolloutPositions(r)
			}
			if p, ok := current[child]; ok {
				return p, true
			}
		}
		for i := len(s.Placed) - 1; i >= 0; i-- { // newest first
			if s.Placed[i].Revision != rev {
				continue
			}
			if kept[i] == nil {
				kept[i] = s.Placed[i].positions()
			}
			if p, ok := kept[i][child]; ok {
				return p, true
			}
		}
		return Position{}, false
	}
}

// rolloutPositions is where r placed its admitted children, each under the first phase
// that admitted it (placementOf without the copy).
func rolloutPositions(r *Rollout) map[string]Position {
	n := 0
	for _, ph := range r.Phases {
		n += len(ph.Admitted)
	}
	out := make(map[string]Position, n)
	for i, ph := range r.Phases {
		rank := 0
		for _, c := range ph.Admitted {
			if _, seen := out[c]; !seen {
				rank++
				out[c] = Position{Phase: ph.Name, Index: i + 1, Count: len(r.Phases), Rank: rank}
			}
		}
	}
	return out
}

// positions indexes a placement by child.
func (p Placement) positions() map[string]Position {
	n := 0
	for _, ph := range p.Phases {
		n += len(ph.Children)
	}
	out := make(map[string]Position, n)
	for i, ph := range p.Phases {
		for r, c := range ph.Children {
			if _, seen := out[c]; !seen {
				out[c] = Position{Phase: ph.Name, Index: i + 1, Count: len(p.Phases), Rank: r + 1}
			}
		}
	}
	return out
}

// validPlaced refuses a placement the engine never writes: a phase name that is not a
// label value (a hand edit; a name reaches every child's position parameters and
// annotation). Its revision may be gone from Revisions: a completed rollout drops the specs
// no child runs, and the next rollout's start drops the placement (KeepPlacements).
func (s *State) validPlaced() error {
	for _, p := range s.Placed {
		for _, ph := range p.Phases {
			if !contract.IsLabelValue(ph.Name) || ph.Name == "" {
				return fmt.Errorf("placed phase name %q is not a phase name (fix: let the agent rebuild the state)", ph.Name)
			}
		}
	}
	return nil
}
