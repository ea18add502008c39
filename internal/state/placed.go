package state

import "slices"

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

// Positions indexes s once and returns each child's position at revision rev: from the
// rollout of rev that admitted it, else from the placement kept for rev (KeepPlacements);
// ok is false when neither knows it.
func (s *State) Positions() func(child, rev string) (Position, bool) {
	type at struct {
		rev string
		pos Position
	}
	index := map[string][]at{}
	add := func(p Placement) {
		for i, ph := range p.Phases {
			for r, c := range ph.Children {
				index[c] = append(index[c], at{p.Revision, Position{Phase: ph.Name, Index: i + 1, Count: len(p.Phases), Rank: r + 1}})
			}
		}
	}
	if s.Rollout != nil {
		add(placementOf(s.Rollout))
	}
	for i := len(s.Placed) - 1; i >= 0; i-- {
		add(s.Placed[i])
	}
	return func(child, rev string) (Position, bool) {
		for _, a := range index[child] {
			if a.rev == rev {
				return a.pos, true
			}
		}
		return Position{}, false
	}
}
