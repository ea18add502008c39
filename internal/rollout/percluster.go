package rollout

import (
	"fmt"
	"maps"
	"slices"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// hookTargets are the clusters (child keys) a hook of kind that is templated with a cluster
// field (spec.Hook.PerCluster) runs for in phase ph, sorted; skipped clusters never. A
// pre-hook runs for the clusters the phase admits: those it has admitted and those it is
// about to admit, as admission would take them now with any manual gate open and no step
// throttle (every member of a RollingSync step; a phaseDeployment phase's size, less members
// earlier phases admitted) — all before the phase admits anyone. A check or post-hook runs for every
// admitted cluster that synced the revision and is Healthy (Done), or that a run of its own
// list already failed (a post-hook never runs for a cluster a check failed); one whose sync
// or health failed (tolerated by maxFailures) is already judged and is not run.
func hookTargets(r *state.Rollout, ph *state.PhaseState, sp spec.Phase, kind string) []string {
	var out []string
	if kind == KindPre {
		b := batchOf(r, ph, sp)
		b.Approved, b.Throttle = true, spec.Size{} // the whole phase, not the members a step lets in at once
		out = slices.Concat(ph.Admitted, nextAdmission(b).Next)
		if b.Steps {
			out = slices.Concat(ph.Admitted, b.Members)
		}
	} else {
		for _, c := range ph.Admitted {
			if f := hookFailure(ph, sp, c); ph.Clusters[c].Status == ClusterDone || (f != nil && (kind == KindCheck || f.Kind == KindPost)) {
				out = append(out, c)
			}
		}
	}
	out = without(out, r.Skipped)
	slices.Sort(out)
	return slices.Compact(out)
}

// clusterNames maps the given children to their clusters' names (the inventory's), for
// the template variables of a per-cluster run.
func clusterNames(subjects []targets.Child, keys []string) map[string]string {
	if len(keys) == 0 {
		return nil
	}
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	out := map[string]string{}
	for _, s := range subjects {
		if want[s.Key] {
			out[s.Key] = s.Name
		}
	}
	return out
}

// hookFailure is the first (in ledger-key order) run of a per-cluster check or post-hook
// that failed cluster c of ph under failurePolicy fail or retry (its attempts spent), or
// nil. Such a failure fails the cluster: it counts once against maxFailures however many of
// its runs failed. A skipped cluster is not judged at all.
func hookFailure(ph *state.PhaseState, sp spec.Phase, c string) *state.HookRun {
	for _, key := range slices.Sorted(maps.Keys(ph.Hooks)) {
		run := ph.Hooks[key]
		if run.Cluster != c || (run.Kind != KindCheck && run.Kind != KindPost) ||
			(run.Status != state.HookFailed && run.Status != state.HookErrored) {
			continue
		}
		list := sp.Checks
		if run.Kind == KindPost {
			list = sp.PostHooks
		}
		if i := slices.IndexFunc(list, func(h spec.Hook) bool { return h.Name == run.Name }); i >= 0 &&
			(list[i].FailurePolicy == "fail" || list[i].FailurePolicy == "retry" || list[i].FailurePolicy == "") {
			return &run
		}
	}
	return nil
}

// hookVerdict is where a cluster whose sync and health are Done stands once its
// per-cluster checks and post-hooks are counted: Failed or Errored (as the run ended) with
// the run's reason, else Done as it was.
func hookVerdict(ph *state.PhaseState, sp spec.Phase, c string, v Verdict, why string) (Verdict, string) {
	if v != Done {
		return v, why
	}
	run := hookFailure(ph, sp, c)
	if run == nil {
		return v, why
	}
	v = Failed
	if run.Status == state.HookErrored {
		v = Errored
	}
	return v, fmt.Sprintf("%s %s: %s", run.Kind, runWhat(*run), run.Message)
}

// clusterHookFailures fails the admitted clusters a per-cluster check or post-hook failed
// (reporting each once, as every failure is) and returns every failed or errored admitted
// cluster of ph, skipped ones left out: the failures maxFailures counts.
func (ps *pass) clusterHookFailures(ph *state.PhaseState, sp spec.Phase) []string {
	r := ps.st.Rollout
	var failed []string
	for _, c := range ph.Admitted {
		cs, ok := ph.Clusters[c]
		if !ok || slices.Contains(r.Skipped, c) {
			continue
		}
		if cs.Status == ClusterDone {
			v, why := hookVerdict(ph, sp, c, Done, cs.Reason)
			if v != Done {
				cs.Status, cs.Reason = v.Status(), why
				ph.Clusters[c] = cs
				ps.emit(r, EvClusterFailed, fmt.Sprintf("phase %s: %s %s: %s", ph.Name, c, cs.Status, why))
			}
		}
		if cs.Status.Failure() {
			failed = append(failed, c)
		}
	}
	return failed
}
