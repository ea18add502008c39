package state

import (
	"maps"
	"slices"
)

// Clone returns a deep copy: the engine mutates the copy and compares it with the original
// to decide whether anything must be written. Revision bodies are shared (never mutated).
// TestCloneCopiesEveryField fails when a field added to the state is not copied here.
func (s *State) Clone() *State {
	if s == nil {
		return nil
	}
	out := *s
	out.Revisions = maps.Clone(s.Revisions)
	out.Children = slices.Clone(s.Children)
	out.Pinned = maps.Clone(s.Pinned)
	out.Removing = slices.Clone(s.Removing)
	out.Leaving = slices.Clone(s.Leaving)
	out.Confirmed = slices.Clone(s.Confirmed)
	out.Rejected = maps.Clone(s.Rejected)
	out.AfterDelete = cloneHooks(s.AfterDelete)
	out.RemovingClusters = maps.Clone(s.RemovingClusters)
	out.Placed = clonePlaced(s.Placed)
	out.Unselected = slices.Clone(s.Unselected)
	if s.Paused != nil {
		p := *s.Paused
		p.Until = clonePtr(p.Until)
		out.Paused = &p
	}
	if s.Rollout != nil {
		r := *s.Rollout
		r.Deferred, r.History, r.Skipped = slices.Clone(r.Deferred), slices.Clone(r.History), slices.Clone(r.Skipped)
		r.Unphased, r.LeftOut = maps.Clone(r.Unphased), maps.Clone(r.LeftOut)
		r.MaxFailures = clonePtr(r.MaxFailures)
		r.Window = r.Window.Clone()
		r.Tracks = slices.Clone(r.Tracks)
		for i := range r.Tracks {
			r.Tracks[i].Window = r.Tracks[i].Window.Clone()
		}
		r.Phases = make([]PhaseState, len(s.Rollout.Phases))
		for i, p := range s.Rollout.Phases {
			p.Members = slices.Clone(p.Members)
			p.Admitted = slices.Clone(p.Admitted)
			p.Clusters, p.Hooks = maps.Clone(p.Clusters), cloneHooks(p.Hooks)
			p.Returning = slices.Clone(p.Returning)
			p.RollbackAt, p.DeadlineAt = clonePtr(p.RollbackAt), clonePtr(p.DeadlineAt)
			p.StartedAt, p.SoakUntil = clonePtr(p.StartedAt), clonePtr(p.SoakUntil)
			p.Approval = p.Approval.Clone()
			r.Phases[i] = p
		}
		out.Rollout = &r
	}
	return &out
}

// cloneHooks copies a hook ledger, each run's FinishedAt included.
func cloneHooks(hooks map[string]HookRun) map[string]HookRun {
	out := maps.Clone(hooks)
	for k, run := range out {
		if run.FinishedAt != nil {
			run.FinishedAt = clonePtr(run.FinishedAt)
			out[k] = run
		}
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func clonePlaced(in []Placement) []Placement {
	if in == nil {
		return nil
	}
	out := make([]Placement, len(in))
	for i, p := range in {
		out[i] = Placement{Revision: p.Revision, Phases: slices.Clone(p.Phases)}
		for j := range out[i].Phases {
			out[i].Phases[j].Children = slices.Clone(p.Phases[j].Children)
		}
	}
	return out
}
