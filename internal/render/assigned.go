package render

import (
	"cmp"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// assigned is one child a state renders and what the state gives it: the revision it runs
// and the phase that admitted it ("" unless the active rollout admitted it).
type assigned struct {
	key, rev, phase string
}

// assignedChildren walks the children a state renders (every deployed child
// and, while a rollout runs, every admitted one) in name order, each with what
// st.Assignments says of it, keeping those keep accepts (nil: all). One pass over the
// state: no map of the admitted children, no copy of every key to sort.
func assignedChildren(st *state.State, keep func(string) bool) []assigned {
	if st == nil {
		return nil
	}
	adm, children := admittedByName(st), st.Children
	if !strictlySorted(children) { // never so in a valid state (Validate); made so, as renders always did
		children = slices.Compact(slices.Sorted(slices.Values(children)))
	}
	out := make([]assigned, 0, len(children)+len(adm))
	add := func(a assigned) {
		if keep == nil || keep(a.key) {
			out = append(out, a)
		}
	}
	i, j := 0, 0
	for i < len(children) || j < len(adm) {
		switch {
		case j == len(adm) || (i < len(children) && children[i] < adm[j].key):
			k := children[i]
			rev, pinned := st.Pinned[k]
			if !pinned {
				rev = st.Deployed
			}
			add(assigned{key: k, rev: rev})
			i++
		default: // admitted, deployed or not: the rollout's revision, in its phase
			if i < len(children) && children[i] == adm[j].key {
				i++
			}
			add(adm[j])
			j++
		}
	}
	return out
}

// strictlySorted reports whether keys are sorted and unique.
func strictlySorted(keys []string) bool {
	for i := 1; i < len(keys); i++ {
		if keys[i-1] >= keys[i] {
			return false
		}
	}
	return true
}

// admittedByName is every child the active rollout admitted, sorted by name, each once
// with the first phase that admitted it (AdmittedPhases); none when no rollout is active.
func admittedByName(st *state.State) []assigned {
	r := st.Rollout
	if !r.Active() {
		return nil
	}
	n := 0
	for _, p := range r.Phases {
		n += len(p.Admitted)
	}
	out := make([]assigned, 0, n)
	for _, p := range r.Phases {
		for _, c := range p.Admitted {
			out = append(out, assigned{key: c, rev: r.Revision, phase: p.Name})
		}
	}
	// stable: of one child admitted twice, the earlier phase comes first and is kept
	slices.SortStableFunc(out, func(a, b assigned) int { return strings.Compare(a.key, b.key) })
	return slices.CompactFunc(out, func(a, b assigned) bool { return a.key == b.key })
}

// removals answers removal (Removing first, then Leaving) with a lookup per child instead
// of a scan of both lists.
func removals(st *state.State) func(k string) string {
	if len(st.Removing) == 0 && len(st.Leaving) == 0 {
		return func(string) string { return "" }
	}
	of := make(map[string]string, len(st.Removing)+len(st.Leaving))
	for _, k := range st.Leaving {
		of[k] = "leaving"
	}
	for _, k := range st.Removing {
		of[k] = "removing"
	}
	return func(k string) string { return of[k] }
}

// byRevision groups children by the revision they run, each group in name order, the
// revisions in order of their id.
func byRevision(children []assigned) [][]assigned {
	sorted := slices.Clone(children)
	slices.SortStableFunc(sorted, func(a, b assigned) int { return cmp.Compare(a.rev, b.rev) })
	var out [][]assigned
	for start := 0; start < len(sorted); {
		end := start + 1
		for end < len(sorted) && sorted[end].rev == sorted[start].rev {
			end++
		}
		out = append(out, sorted[start:end:end])
		start = end
	}
	return out
}
