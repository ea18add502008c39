package rollout

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// clusterNamesOf are the cluster names the engine gave the runs it asks for, by ledger key.
func clusterNamesOf(acts []Action) map[string]string {
	out := map[string]string{}
	for _, a := range acts {
		if a.Kind == ActRunHook {
			out[a.Key] = a.ClusterName
		}
	}
	return out
}

// perClusterHooks is seed 000's advanced hooks on the dev phase: a per-cluster pre-hook, a
// per-cluster post-hook (smoke-tests' TARGET_URL: https://{{name}}.example.com) and a
// per-phase post-hook.
func perClusterHooks(policy string) []spec.Phase {
	phases := threePhases()
	phases[0].PreHooks = []spec.Hook{httpHook("prepare", "https://{{name}}.example.com/prepare", policy)}
	phases[0].PostHooks = []spec.Hook{
		{Name: "smoke-tests", Type: "command", FailurePolicy: policy, Block: &commandBlock{Command: []string{"pytest", "tests/smoke/"}, Env: map[string]string{"TARGET_URL": "https://{{name}}.example.com"}}},
		httpHook("success-notification", "https://chat.example.com", "ignore"),
	}
	return phases
}

func TestAPhaseWithPerClusterHooksRunsOnePerClusterAndCompletes(t *testing.T) {
	w := newWorld(perClusterHooks("fail")...)
	for i := range w.obs.Subjects {
		w.obs.Subjects[i].Name = "cluster-" + w.obs.Subjects[i].Key // child key ≠ cluster name
	}
	acts := w.step(t, 0)
	if fmt.Sprint(runs(acts)) != "[pre/prepare/dev-1 pre/prepare/dev-2]" || len(w.admitted()) != 0 {
		t.Fatalf("a per-cluster pre-hook runs for each cluster about to be admitted, before any is: runs %v, admitted %v", runs(acts), w.admitted())
	}
	if names := clusterNamesOf(acts); names["pre/prepare/dev-1"] != "cluster-dev-1" {
		t.Fatalf("the run names the cluster for its template (the child does not exist yet): %v", names)
	}
	w.ends(1, state.HookSucceeded, "pre/prepare/dev-1")
	if w.step(t, 2); len(w.admitted()) != 0 {
		t.Fatalf("nobody is admitted until every cluster's pre-hook passed: %v", w.admitted())
	}
	w.ends(3, state.HookSucceeded, "pre/prepare/dev-2")
	w.step(t, 4)
	if fmt.Sprint(w.admitted()) != "[dev-1 dev-2]" {
		t.Fatalf("admitted %v", w.admitted())
	}
	w.syncs(5, "r2", "dev-1", "dev-2")
	acts = w.step(t, 10)
	if fmt.Sprint(runs(acts)) != "[post/smoke-tests/dev-1 post/smoke-tests/dev-2 post/success-notification]" {
		t.Fatalf("the templated post-hook runs per cluster, the plain one once: %v", runs(acts))
	}
	w.ends(11, state.HookSucceeded, "post/smoke-tests/dev-1", "post/smoke-tests/dev-2", "post/success-notification")
	w.step(t, 12)
	if r := w.st.Rollout; r.Phase != 1 || r.Phases[0].Status != PhaseSucceeded {
		t.Fatalf("the phase completes: %+v", r.Phases[0])
	}
	w.syncs(15, "r2", "staging-1", "staging-2")
	w.step(t, 20)
	w.step(t, 80) // staging's soak
	w.syncs(85, "r2", "prod-1")
	w.step(t, 90)
	if r := w.st.Rollout; r.Status != StatusCompleted {
		t.Fatalf("seed 000's advanced hooks run to completion: %s %q", r.Status, r.Reason)
	}
}

func TestPerClusterHooksRespectTheHookLimit(t *testing.T) {
	phases := []spec.Phase{envPhase("prod", "prod", spec.Size{}, false)}
	phases[0].PostHooks = []spec.Hook{httpHook("smoke", "https://{{name}}.example.com", "fail")}
	w := newWorld(phases...)
	w.obs.Limits.HooksAtOnce = 1
	w.step(t, 0)
	w.syncs(5, "r2", "prod-1", "prod-2")
	if acts := w.step(t, 10); fmt.Sprint(runs(acts)) != "[post/smoke/prod-1]" {
		t.Fatalf("at most MaxHooks per-cluster runs at once: %v", runs(acts))
	}
	w.ends(11, state.HookSucceeded, "post/smoke/prod-1")
	if acts := w.step(t, 12); fmt.Sprint(runs(acts)) != "[post/smoke/prod-2]" {
		t.Fatalf("the next cluster's run once a slot is free: %v", runs(acts))
	}
}

func TestAFailedPerClusterPreHookAppliesItsFailurePolicyToThePhase(t *testing.T) {
	w := newWorld(perClusterHooks("fail")...)
	w.step(t, 0)
	w.ends(1, state.HookSucceeded, "pre/prepare/dev-1")
	w.ends(1, state.HookFailed, "pre/prepare/dev-2")
	w.step(t, 2)
	if r := w.st.Rollout; r.Status != StatusStopped || len(w.admitted()) != 0 || !strings.Contains(r.Reason, "pre prepare on dev-2 Failed") {
		t.Fatalf("nothing admitted is tolerated before deploy: %s %v %q", r.Status, w.admitted(), r.Reason)
	}
}

func TestPerClusterCheckFailuresCountPerClusterAgainstMaxFailures(t *testing.T) {
	cases := map[string]struct {
		maxFailures int
		failing     []string // ledger keys that fail
		degraded    string   // a child whose health failed too
		want        state.RolloutStatus
		wantPhase   int
	}{
		"one failed check within maxFailures 1": {1, []string{"check/health/dev-2"}, "", StatusProgressing, 1},
		"two checks of one cluster count once":  {1, []string{"check/health/dev-2", "check/ready/dev-2"}, "", StatusProgressing, 1},
		"a check and a sync of one cluster":     {1, []string{"check/health/dev-2"}, "dev-2", StatusProgressing, 1},
		"two clusters over maxFailures 1":       {1, []string{"check/health/dev-1", "check/ready/dev-2"}, "", StatusStopped, 0},
		"a check over maxFailures 0":            {0, []string{"check/ready/dev-1"}, "", StatusStopped, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			phases := hookedPhases("fail")
			phases[0].Checks = append(phases[0].Checks, httpHook("ready", "https://{{server}}/ready", "retry"))
			phases[0].MaxFailures = c.maxFailures
			w := newWorld(phases...)
			w.toChecks(t)
			if c.degraded != "" {
				w.ends(10, state.HookFailed, "check/health/"+c.degraded) // its checks ran while it was Healthy
				w.degrade(c.degraded)
			}
			all := []string{"check/health/dev-1", "check/health/dev-2", "check/ready/dev-1", "check/ready/dev-2", "check/slo"}
			for _, k := range all {
				status := state.HookSucceeded
				if slices.Contains(c.failing, k) {
					status = state.HookFailed
				}
				w.ends(11, status, k)
			}
			acts := w.step(t, 12)
			w.ends(12, state.HookSucceeded, "post/notify")
			w.step(t, 13)
			r := w.st.Rollout
			if r.Status != c.want || r.Phase != c.wantPhase {
				t.Fatalf("%s at phase %d: %q", r.Status, r.Phase, r.Reason)
			}
			failed := 0
			for _, cs := range r.Phases[0].Clusters {
				if cs.Status == ClusterFailed {
					failed++
				}
			}
			if failed == 0 || !slices.Contains(events(acts), EvClusterFailed) {
				t.Fatalf("the failed cluster is recorded and reported: %+v %v", r.Phases[0].Clusters, events(acts))
			}
			if c.want == StatusProgressing && !strings.HasPrefix(r.Phases[0].Clusters["dev-2"].Reason, "check ") && c.degraded == "" {
				t.Fatalf("the status says which check failed it: %q", r.Phases[0].Clusters["dev-2"].Reason)
			}
		})
	}
}

func TestAPerPhaseCheckKeepsItsFailurePolicy(t *testing.T) {
	phases := hookedPhases("fail")
	phases[0].MaxFailures = 5
	w := newWorld(phases...)
	w.toChecks(t)
	w.ends(11, state.HookSucceeded, "check/health/dev-1", "check/health/dev-2")
	w.ends(11, state.HookFailed, "check/slo")
	w.step(t, 12)
	if r := w.st.Rollout; r.Status != StatusStopped || !strings.Contains(r.Reason, "check slo Failed") {
		t.Fatalf("a once-per-phase check is no cluster's failure: maxFailures does not tolerate it: %s %q", r.Status, r.Reason)
	}
}

func TestASkippedClusterIsNotChecked(t *testing.T) {
	w := newWorld(hookedPhases("fail")...)
	w.step(t, 0)
	w.ends(1, state.HookSucceeded, "pre/open-change")
	w.step(t, 2)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.edit(map[string]string{"skip": "dev-2", "by": "dave"})
	acts := w.step(t, 10)
	if fmt.Sprint(runs(acts)) != "[check/health/dev-1 check/slo]" {
		t.Fatalf("no check starts for a skipped cluster: %v", runs(acts))
	}

	// skipped while its check runs: the run is ignored, its failure stops nothing
	w = newWorld(hookedPhases("fail")...)
	w.toChecks(t)
	w.edit(map[string]string{"skip": "dev-2", "by": "dave"})
	w.ends(11, state.HookSucceeded, "check/health/dev-1", "check/slo")
	w.ends(11, state.HookFailed, "check/health/dev-2")
	acts = w.step(t, 12)
	if r := w.st.Rollout; r.Status != StatusProgressing || r.Phases[0].Clusters["dev-2"].Status != state.ClusterSkipped || slices.Contains(runs(acts), "check/health/dev-2") {
		t.Fatalf("a skipped cluster's check is ignored: %s %q %+v", r.Status, r.Reason, r.Phases[0].Clusters)
	}
	w.ends(12, state.HookSucceeded, "post/notify")
	if w.step(t, 13); w.st.Rollout.Phase != 1 {
		t.Fatalf("the phase goes on: %+v", w.st.Rollout.Phases[0])
	}
}

// TestAPostHookSkipsAClusterACheckFailed: within maxFailures, a cluster a per-cluster check
// failed is judged: the phase's per-cluster post-hooks (smoke tests) run for the others only.
func TestAPostHookSkipsAClusterACheckFailed(t *testing.T) {
	phases := hookedPhases("fail")
	phases[0].MaxFailures = 1
	phases[0].PostHooks = append(phases[0].PostHooks, httpHook("smoke", "https://{{name}}.example.com/smoke", "fail"))
	w := newWorld(phases...)
	w.toChecks(t)
	w.ends(11, state.HookSucceeded, "check/health/dev-1")
	w.ends(11, state.HookFailed, "check/health/dev-2")
	w.ends(11, state.HookSucceeded, "check/slo")
	var all []string
	for s := 12; s < 400; s += 10 {
		all = append(all, runs(w.step(t, s))...)
		if w.st.Rollout.Phase > 0 {
			break
		}
	}
	if !slices.Contains(all, "post/smoke/dev-1") || slices.Contains(all, "post/smoke/dev-2") {
		t.Fatalf("post-hook runs %v: want dev-1's smoke test only", all)
	}
}
