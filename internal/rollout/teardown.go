package rollout

import (
	"time"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Teardown decides the next step of removing a rollout's children with its parent (a
// parent deleted with Argo CD's resources finalizer): the live children to delete now, in
// the plan's deletionOrder — Reverse: the live children of the latest phase still present,
// the next phase's only once those are gone; AllAtOnce: every live child — and whether none
// is left. live are the rollout's live child Applications (those being deleted included);
// subjects place children the last rollout did not admit in the first phase that selects
// them. It reads only the state and what is live, so an agent that restarts mid-way goes on
// where the last one stopped.
func Teardown(st *state.State, p plan.Plan, subjects []targets.Child, live []string) (del []string, done bool) {
	if len(live) == 0 {
		return nil, true
	}
	bySubject := make(map[string]targets.Child, len(subjects))
	for _, s := range subjects {
		bySubject[s.Key] = s
	}
	group, _ := removalGroups(st, p, live, bySubject)
	return group, false
}

// TornDown is the state once every child went (with the parent, or with a spec gone from
// git, as how says): no child is deployed any
// more, a running rollout is abandoned, and the history says why, so a parent created again
// later starts from a first deployment, phase by phase. It returns cur itself when there is
// nothing to forget.
func TornDown(cur *state.State, how string, now time.Time) (*state.State, []Action) {
	if cur == nil || (len(cur.Children) == 0 && len(cur.Removing) == 0 && len(cur.Leaving) == 0 && !cur.Rollout.Active()) {
		return cur, nil
	}
	st := cur.Clone()
	ps := &pass{st: st, now: now}
	st.Children, st.Pinned, st.Removing, st.Leaving, st.Confirmed = nil, nil, nil, nil, nil
	if r := st.Rollout; r.Active() {
		r.Status, r.Deferred, r.Reason = StatusAbandoned, nil, "every child was removed "+how
	}
	ps.emit(st.Rollout, EvRolloutRemoved, "every child was removed "+how)
	st.Generation++
	st.WrittenAt = now
	st.ViewGeneration = st.Generation
	return st, ps.acts
}
