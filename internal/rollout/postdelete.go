package rollout

import (
	"fmt"
	"maps"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// KindPostDelete is the ledger kind and HOOK_TYPE of a post-delete hook (seed 002's
// PostDelete); its runs are in the state's AfterDelete ledger, outside any phase, and their
// actions name phase NoPhase.
const KindPostDelete = "postdelete"

// NoPhase is the phase of a run outside every phase (a post-delete hook's).
const NoPhase = -1

// startAfterDelete starts the post-delete hooks the children gone call for: each
// per-cluster hook for each of gone (child → its cluster's name, "" when unknown), and,
// when whole (every child of the rollout is gone), each other hook once. A run the ledger
// has is not started again, unless again (a child gone once more, which left, came back
// and left again) and that run has ended. Runs go through
// the AfterDelete ledger as every hook does: driveAfterDelete asks for them, this pass
// included, until they end.
func (ps *pass) startAfterDelete(gone map[string]string, whole, again bool) {
	st, now := ps.st, ps.now
	for _, h := range ps.p.PostDeleteHooks {
		targets := []string{""}
		if h.PerCluster() {
			targets = slices.Sorted(maps.Keys(gone))
		} else if !whole {
			continue
		}
		for _, c := range targets {
			key := HookKey(KindPostDelete, h.Name, c)
			if run, seen := st.AfterDelete[key]; seen && (!again || run.Status == state.HookRunning) {
				continue // once per cause: a child gone, the rollout's children gone
			}
			if st.AfterDelete == nil {
				st.AfterDelete = map[string]state.HookRun{}
			}
			st.AfterDelete[key] = state.HookRun{Kind: KindPostDelete, Name: h.Name, Cluster: c, Status: state.HookRunning, StartedAt: now}
			if c != "" && gone[c] != "" {
				if st.RemovingClusters == nil {
					st.RemovingClusters = map[string]string{}
				}
				st.RemovingClusters[c] = gone[c] // its runs name the cluster until they end
			}
			ps.emit(st.Rollout, EvHookStarted, fmt.Sprintf("post-delete hook %s started", target(h.Name, c)))
		}
	}
	trimAfterDelete(st)
}

// driveAfterDelete records the post-delete runs whose results came back, and asks again for
// the ones still running (a new agent starts them again, with the same key); a hook the
// plan no longer has is Errored. It reports whether some still run.
func (ps *pass) driveAfterDelete() bool {
	st, hooks, o, now := ps.st, ps.p.PostDeleteHooks, ps.o, ps.now
	running := false
	for _, key := range slices.Sorted(maps.Keys(st.AfterDelete)) {
		run := st.AfterDelete[key]
		if run.Status != state.HookRunning {
			continue
		}
		if res := o.Hooks[key]; res.Status != "" && res.Status != state.HookRunning {
			run, ev := withResult(run, res)
			st.AfterDelete[key] = run
			ps.emit(st.Rollout, ev, fmt.Sprintf("post-delete hook %s %s after %d attempt(s): %s", target(run.Name, run.Cluster), res.Status, res.Attempts, res.Message))
			continue
		}
		i := slices.IndexFunc(hooks, func(h spec.Hook) bool { return h.Name == run.Name })
		if i < 0 {
			at := now
			run.Status, run.FinishedAt, run.Message = state.HookErrored, &at, "the plan no longer has this hook: not run again"
			st.AfterDelete[key] = run
			continue
		}
		running = true
		ps.add(Action{Kind: ActRunHook, Key: key, Hook: hooks[i], Cluster: run.Cluster, ClusterName: st.RemovingClusters[run.Cluster], Phase: NoPhase})
	}
	forgetClusters(st)
	return running
}

// noteClusters records the cluster of each of children the live children name, for
// their post-delete hooks (RemovingClusters).
func noteClusters(st *state.State, children []string, o Observed) {
	for _, c := range children {
		if obs, ok := o.Children[c]; ok && obs.Cluster != "" {
			if st.RemovingClusters == nil {
				st.RemovingClusters = map[string]string{}
			}
			st.RemovingClusters[c] = obs.Cluster
		}
	}
}

// forgetClusters drops the clusters of children neither being removed nor with a
// post-delete run still running.
func forgetClusters(st *state.State) {
	running := map[string]bool{}
	for _, run := range st.AfterDelete {
		running[run.Cluster] = running[run.Cluster] || run.Status == state.HookRunning
	}
	for c := range st.RemovingClusters {
		if !running[c] && !slices.Contains(st.Removing, c) {
			delete(st.RemovingClusters, c)
		}
	}
	if len(st.RemovingClusters) == 0 {
		st.RemovingClusters = nil
	}
}

// trimAfterDelete keeps the post-delete ledger within state.MaxAfterDelete entries, the
// oldest ended ones going first (a running one is never dropped).
func trimAfterDelete(st *state.State) {
	if len(st.AfterDelete) <= state.MaxAfterDelete {
		return
	}
	keys := slices.SortedFunc(maps.Keys(st.AfterDelete), func(a, b string) int {
		return st.AfterDelete[a].StartedAt.Compare(st.AfterDelete[b].StartedAt)
	})
	for _, k := range keys {
		if len(st.AfterDelete) <= state.MaxAfterDelete {
			return
		}
		if st.AfterDelete[k].Status != state.HookRunning {
			delete(st.AfterDelete, k)
		}
	}
}

// forgetEndedAfterDelete drops the post-delete runs that ended (a running one is kept).
func forgetEndedAfterDelete(st *state.State) {
	maps.DeleteFunc(st.AfterDelete, func(_ string, run state.HookRun) bool { return run.Status != state.HookRunning })
	if len(st.AfterDelete) == 0 {
		st.AfterDelete = nil
	}
}
