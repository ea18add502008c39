package rollout

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// adopt is the upgrade to pinned commits: when the plan is a revision with content whose
// spec is a revision the state keeps without content (children following the parent's
// moving ref), that revision becomes the plan's everywhere the state names it. Its
// children are then pinned to the plan's commit all at once and without a rollout: what
// they deploy does not change (they were following the commit the parent rendered).
//
// Only when it is safe: no rollout of that revision is running (legacy keeps driving it
// until it ends), the plan's revision is not stored already, and every other revision the
// state keeps has content — otherwise children of another revision would stay unpinned,
// and the plan's revision rolls out phase by phase instead.
func (ps *pass) adopt() {
	st, p := ps.st, ps.p
	old, ok := legacyOf(st, p)
	if !ok || st.Rollout.Active() && st.Rollout.Revision == old {
		return
	}
	if _, stored := st.Revisions[p.Revision]; stored {
		return
	}
	for id, body := range st.Revisions {
		if id != old && spec.ContentTail(body) == nil {
			return
		}
	}
	c := spec.CommitOf(p.Body)
	delete(st.Revisions, old)
	st.Revisions[p.Revision] = p.Body
	if st.Deployed == old {
		st.Deployed = p.Revision
	}
	for child, rev := range st.Pinned {
		if rev == old {
			st.Pinned[child] = p.Revision
		}
	}
	var r *state.Rollout
	if st.Rollout != nil && st.Rollout.Revision == old {
		r = st.Rollout
		r.Revision = p.Revision
	}
	ps.emit(r, EvRevisionPinned, fmt.Sprintf("revision %s is now %s: its children are pinned to commit %s without a rollout (what they deploy is unchanged)", old, p.Revision, c))
}

// legacyOf is the id of the revision the state keeps, without content, for the plan's spec
// (the plan has content): what a state from before pinned commits deploys or rolls out.
func legacyOf(st *state.State, p plan.Plan) (string, bool) {
	specBody, c, err := spec.SplitContent(p.Body)
	if err != nil || c == nil {
		return "", false
	}
	old := spec.RevisionID(specBody)
	_, kept := st.Revisions[old]
	return old, kept && old != p.Revision
}

// legacyPlan drives a rollout started before pinned commits as it is when the plan is the
// same spec with content: it completes on its own revision, then adopt pins it.
func legacyPlan(st *state.State, p plan.Plan) plan.Plan {
	if old, ok := legacyOf(st, p); ok && st.Rollout.Active() && st.Rollout.Revision == old {
		p.Revision, p.Body = old, st.Revisions[old]
	}
	return p
}

// leftOut warns about children no phase selects and nothing deploys whose template cannot
// render: the render left them out rather than fail every cluster's.
func (ps *pass) leftOut() {
	r, p := ps.st.Rollout, ps.p
	if len(p.LeftOut) == 0 {
		return
	}
	r.LeftOut = maps.Clone(p.LeftOut)
	keys := slices.Sorted(maps.Keys(p.LeftOut))
	list := keys[:min(len(keys), 5)]
	if len(keys) > 5 {
		list = append(slices.Clone(list), fmt.Sprintf("and %d more", len(keys)-5))
	}
	ps.emit(r, EvChildrenLeftOut, fmt.Sprintf("%d children no phase selects are left out, their template cannot render: %s; first: %s (fix: give their clusters the labels the template reads, or select them in no generator)",
		len(keys), strings.Join(list, ", "), p.LeftOut[keys[0]]))
}

// notPhased warns about children whose sources follow a moving ref the plugin cannot see.
func (ps *pass) notPhased() {
	r, p := ps.st.Rollout, ps.p
	if len(p.Unphased) == 0 {
		return
	}
	r.Unphased = maps.Clone(p.Unphased)
	keys := slices.Sorted(maps.Keys(p.Unphased))
	var list []string
	for _, k := range keys[:min(len(keys), 5)] {
		list = append(list, k+" ("+p.Unphased[k]+")")
	}
	if len(keys) > 5 {
		list = append(list, fmt.Sprintf("and %d more", len(keys)-5))
	}
	ps.emit(r, EvNotPhased, fmt.Sprintf("%d children deploy from a moving ref cmp-phase cannot see, so changes there are not phased: %s (fix: pin targetRevision in the spec, e.g. from generator values, and bump it by a commit)", len(keys), strings.Join(list, ", ")))
}
