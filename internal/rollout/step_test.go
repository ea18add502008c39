package rollout

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// world is a fleet of dev/staging/prod children, all deployed on r1, rolling out r2.
type world struct {
	plan plan.Plan
	st   *state.State
	obs  Observed
}

func newWorld(phases ...spec.Phase) *world {
	w := &world{
		plan: plan.Plan{Revision: "r2", Body: json.RawMessage(`{"v":2}`), Phases: phases},
		st: &state.State{Schema: state.Schema, Generation: 1, Deployed: "r1",
			Revisions: map[string]json.RawMessage{"r1": json.RawMessage(`{"v":1}`)}},
		obs: Observed{Changed: map[string]bool{}, Children: map[string]Observation{}},
	}
	for _, env := range []string{"dev", "staging", "prod"} {
		for i := 1; i <= 2; i++ {
			key := fmt.Sprintf("%s-%d", env, i)
			w.obs.Subjects = append(w.obs.Subjects, subject(key, env))
			w.obs.Changed[key] = true
			w.st.Children = append(w.st.Children, key)
			w.obs.Children[key] = Observation{Revision: "r1", SpecCompared: true, SyncStatus: "Synced", ReconciledAt: at(-100), Health: "Healthy"}
		}
	}
	slices.Sort(w.st.Children)
	return w
}

// step runs Step at t0+s seconds and keeps the new state.
func (w *world) step(t *testing.T, s int) []Action {
	t.Helper()
	next, acts, err := Step(w.plan, w.st, w.obs, at(s))
	if err != nil {
		t.Fatal(err)
	}
	if err := next.Validate(); err != nil {
		t.Fatalf("the engine produced a state the renderer refuses: %v", err)
	}
	if _, err := state.Encode(next); err != nil {
		t.Fatal(err)
	}
	w.st = next
	return acts
}

// syncs makes the live children run rev, synced at t0+s and reconciled just after.
func (w *world) syncs(s int, rev string, keys ...string) {
	for _, k := range keys {
		w.obs.Children[k] = Observation{Revision: rev, SpecCompared: true, SyncStatus: "Synced", OperationPhase: "Succeeded",
			OperationFinishedAt: at(s), ReconciledAt: at(s + 1), Health: "Healthy"}
	}
}

// degrade makes a live child Degraded.
func (w *world) degrade(key string) {
	o := w.obs.Children[key]
	o.Health = "Degraded"
	w.obs.Children[key] = o
}

func (w *world) admitted() []string {
	var out []string
	for _, ph := range w.st.Rollout.Phases {
		out = append(out, ph.Admitted...)
	}
	slices.Sort(out)
	return out
}

func threePhases() []spec.Phase {
	staging := envPhase("staging", "staging", spec.Size{}, false)
	staging.WaitDuration = time.Minute
	return []spec.Phase{envPhase("dev", "dev", spec.Size{}, false), staging, envPhase("prod", "prod", pct(50), false)}
}

func TestANewRevisionStartsARolloutAndAdmitsPhaseZero(t *testing.T) {
	w := newWorld(threePhases()...)
	w.obs.Changed["prod-2"] = false // renders the same at r2: takes no part
	w.step(t, 0)
	r := w.st.Rollout
	if r.Revision != "r2" || r.Status != StatusProgressing || w.st.Generation != 2 {
		t.Fatalf("rollout %+v gen %d", r, w.st.Generation)
	}
	if fmt.Sprint(r.Phases[2].Members) != "[prod-1]" {
		t.Fatalf("only changed children take part: %v", r.Phases[2].Members)
	}
	if fmt.Sprint(w.admitted()) != "[dev-1 dev-2]" {
		t.Fatalf("phase 0 admitted %v", w.admitted())
	}
	if string(w.st.Revisions["r2"]) != `{"v":2}` {
		t.Fatal("the new revision's spec is stored for re-rendering")
	}
	if w.st.ViewGeneration != w.st.Generation {
		t.Fatalf("an admission asks for a re-render: view %d, generation %d", w.st.ViewGeneration, w.st.Generation)
	}
}

func TestStaleHealthyFromTheOldRevisionNeverPassesAGate(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	// The children still report Synced/Healthy — for r1.
	w.step(t, 10)
	if w.st.Rollout.Phase != 0 || w.st.Rollout.Phases[0].Clusters["dev-1"].Status != ClusterWaiting {
		t.Fatalf("advanced on stale health: %+v", w.st.Rollout.Phases[0])
	}
}

func TestAPhaseNeverAdvancesWhileAnyMemberIsUnsettled(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	if w.st.Rollout.Phase != 0 {
		t.Fatal("advanced with dev-2 unsettled")
	}
	w.syncs(12, "r2", "dev-2")
	w.step(t, 20)
	if w.st.Rollout.Phase != 1 || fmt.Sprint(w.admitted()) != "[dev-1 dev-2 staging-1 staging-2]" {
		t.Fatalf("phase %d admitted %v", w.st.Rollout.Phase, w.admitted())
	}
}

func TestSoakIsADeadlineInStateNotASleep(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10) // staging admitted
	w.syncs(15, "r2", "staging-1", "staging-2")
	acts := w.step(t, 20)
	ph := w.st.Rollout.Phases[1]
	if ph.Status != PhaseSoaking || !ph.SoakUntil.Equal(at(80)) {
		t.Fatalf("soak: %+v", ph)
	}
	if !slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == ActRequeue && a.At.Equal(at(80)) }) {
		t.Fatalf("requeue at the soak's end: %v", acts)
	}
	gen := w.st.Generation
	before := w.st
	if w.step(t, 50); w.st != before || w.st.Generation != gen {
		t.Fatal("nothing changed mid-soak, so nothing is written")
	}
	w.step(t, 80)
	if w.st.Rollout.Phase != 2 || fmt.Sprint(w.st.Rollout.Phases[2].Admitted) != "[prod-1]" {
		t.Fatalf("after the soak prod admits 50%%: %+v", w.st.Rollout.Phases[2])
	}
}

func TestCompletionDeploysTheRevisionAndDropsUnusedOnes(t *testing.T) {
	w := newWorld(envPhase("all", "dev", spec.Size{}, false))
	w.obs.Changed["prod-1"] = false
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	if w.st.Rollout.Status != StatusCompleted || w.st.Deployed != "r2" {
		t.Fatalf("%+v deployed %s", w.st.Rollout, w.st.Deployed)
	}
	// staging and prod-2 changed but no phase selected them: they stay on r1, pinned.
	if w.st.Pinned["staging-1"] != "r1" || w.st.Pinned["prod-2"] != "r1" || w.st.Pinned["prod-1"] != "" {
		t.Fatalf("pins %v", w.st.Pinned)
	}
	w2 := newWorld(envPhase("all", "dev", spec.Size{}, false))
	for k := range w2.obs.Changed { // the agent's Changed has an entry for every generated child
		w2.obs.Changed[k] = k == "dev-1" || k == "dev-2"
	}
	w2.step(t, 0)
	w2.syncs(5, "r2", "dev-1", "dev-2")
	w2.step(t, 10)
	if _, kept := w2.st.Revisions["r1"]; kept || len(w2.st.Pinned) != 0 {
		t.Fatalf("nobody runs r1 any more: revisions %v pins %v", w2.st.Revisions, w2.st.Pinned)
	}
}

func TestANewRevisionMidRolloutAbandonsTheOldOneWithoutMovingAnyone(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0) // dev admitted to r2
	w.plan.Revision, w.plan.Body = "r3", json.RawMessage(`{"v":3}`)
	acts := w.step(t, 30)
	if w.st.Rollout.Revision != "r3" || w.st.Pinned["dev-1"] != "r2" || w.st.Pinned["dev-2"] != "r2" {
		t.Fatalf("rollout %s pins %v", w.st.Rollout.Revision, w.st.Pinned)
	}
	if fmt.Sprint(w.admitted()) != "[dev-1 dev-2]" || w.st.Rollout.Phase != 0 {
		t.Fatalf("r3 starts at phase 0: %v", w.admitted())
	}
	if !slices.ContainsFunc(acts, func(a Action) bool { return strings.Contains(a.Message, "abandoned") }) {
		t.Fatalf("abandoning is reported: %v", acts)
	}
}

func TestOnFailureStopStopsAndNamesTheCluster(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.degrade("dev-2")
	w.step(t, 10)
	r := w.st.Rollout
	if r.Status != StatusStopped || !strings.Contains(r.Reason, "dev-2") || r.Phases[0].Status != PhaseFailed {
		t.Fatalf("%+v", r)
	}
	if next, _, _ := Step(w.plan, w.st, w.obs, at(20)); next != w.st {
		t.Fatal("a stopped rollout does not move by itself")
	}
}

func TestRollingSyncUpdatesAtMostMaxUpdateAtOnceAndAGateHolds(t *testing.T) {
	w := newWorld(envPhase("step-1", "prod", count(1), true), envPhase("step-2", "dev", spec.Size{Kind: spec.SizeCount, Gate: true}, true))
	w.step(t, 0)
	if fmt.Sprint(w.admitted()) != "[prod-1]" {
		t.Fatalf("one at a time: %v", w.admitted())
	}
	w.syncs(5, "r2", "prod-1")
	w.step(t, 10)
	if fmt.Sprint(w.admitted()) != "[prod-1 prod-2]" {
		t.Fatalf("the next one starts when the first is done: %v", w.admitted())
	}
	w.syncs(15, "r2", "prod-2")
	w.step(t, 20)
	if w.st.Rollout.Phase != 1 || len(w.st.Rollout.Phases[1].Admitted) != 0 || w.st.Rollout.Status != StatusProgressing {
		t.Fatalf("maxUpdate: 0 holds the step for approval: %+v", w.st.Rollout)
	}
}

func TestNothingToDoWritesNothing(t *testing.T) {
	w := newWorld(threePhases()...)
	w.plan.Revision = "r1"
	for k := range w.obs.Changed {
		w.obs.Changed[k] = false // every child runs r1 already
	}
	if next, acts, _ := Step(w.plan, w.st, w.obs, t0); next != w.st || len(acts) != 0 {
		t.Fatalf("the deployed revision is a no-op: %v", acts)
	}
}

// benchWorld is a rollout of n children mid-phase: its canary admitted and synced at
// +5s; next is its state.
func benchWorld(b *testing.B, n int) (w *world, next *state.State) {
	b.Helper()
	w = &world{
		plan: plan.Plan{Revision: "r2", Body: json.RawMessage(`{"v":2}`), Phases: []spec.Phase{
			envPhase("canary", "prod", pct(10), false), envPhase("prod", "prod", spec.Size{}, false)}},
		st:  &state.State{Schema: state.Schema, Generation: 1, Deployed: "r1", Revisions: map[string]json.RawMessage{"r1": json.RawMessage(`{}`)}},
		obs: Observed{Changed: map[string]bool{}, Children: map[string]Observation{}},
	}
	for i := range n {
		key := fmt.Sprintf("prod-%05d", i)
		w.obs.Subjects = append(w.obs.Subjects, subject(key, "prod"))
		w.obs.Changed[key] = true
		w.st.Children = append(w.st.Children, key)
	}
	next, _, err := Step(w.plan, w.st, w.obs, t0) // canary admitted
	if err != nil {
		b.Fatal(err)
	}
	w.syncs(5, "r2", next.Rollout.Phases[0].Admitted...)
	return w, next
}

// BenchmarkStep is one full decision over a 10,000-child rollout mid-phase.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{10000} {
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			w, next := benchWorld(b, n)
			for b.Loop() {
				if _, _, err := Step(w.plan, next, w.obs, at(10)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecide is the agent's pass over the same rollout through Decide: Step, the
// moves, and the warms — previewed for a generation the agent has not warmed ("preview"),
// not for one it has ("warmed", every later pass over the same state).
func BenchmarkDecide(b *testing.B) {
	for _, n := range []int{10000} {
		for _, warmed := range []bool{false, true} {
			b.Run(fmt.Sprintf("clusters=%d/warmed=%v", n, warmed), func(b *testing.B) {
				w, next := benchWorld(b, n)
				d, err := Decide(w.plan, next, w.obs, at(10))
				if err != nil || d.WarmState == nil {
					b.Fatalf("no preview to measure: %v", err)
				}
				if warmed {
					w.obs.Warmed = d.Next.Generation
				}
				for b.Loop() {
					if _, err := Decide(w.plan, next, w.obs, at(10)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func TestTheFirstDeploymentStartsFromNoState(t *testing.T) {
	w := newWorld(threePhases()...)
	next, _, err := Step(w.plan, nil, w.obs, t0)
	if err != nil || next == nil || next.Generation != 1 || fmt.Sprint(next.Rollout.Phases[0].Admitted) != "[dev-1 dev-2]" {
		t.Fatalf("first deployment: %+v %v", next, err)
	}
	if err := next.Validate(); err != nil {
		t.Fatalf("the first state is valid: %v", err)
	}
}

func TestRollbackReturnsAdmittedClustersInReversePhaseOrder(t *testing.T) {
	phases := threePhases()
	phases[1].WaitDuration = 0
	phases[2].OnFailure = "rollback"
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.syncs(15, "r2", "staging-1", "staging-2")
	w.step(t, 20) // prod-1 admitted (50%)
	w.syncs(25, "r2", "prod-1")
	w.degrade("prod-1")
	w.step(t, 30)
	r := w.st.Rollout
	if r.Status != StatusRollingBack || fmt.Sprint(r.Phases[2].Returning) != "[prod-1]" || len(w.admitted()) != 4 {
		t.Fatalf("the last phase returns first: %+v admitted %v", r.Phases[2], w.admitted())
	}
	w.step(t, 35) // prod-1 has not settled back on r1 yet
	if len(w.st.Rollout.Phases[1].Returning) != 0 || fmt.Sprint(w.st.Rollout.Phases[1].Admitted) != "[staging-1 staging-2]" {
		t.Fatalf("staging waits until prod has returned: %+v", w.st.Rollout.Phases[1])
	}
	w.syncs(40, "r1", "prod-1")
	w.step(t, 45)
	r = w.st.Rollout
	if fmt.Sprint(r.Phases[1].Returning) != "[staging-1 staging-2]" || r.Phases[2].Status != PhaseReturned {
		t.Fatalf("then staging: %+v", r.Phases)
	}
	w.syncs(50, "r1", "staging-1", "staging-2")
	w.step(t, 55)
	w.syncs(60, "r1", "dev-1", "dev-2")
	w.step(t, 65)
	r = w.st.Rollout
	if r.Status != StatusRolledBack || len(w.admitted()) != 0 || w.st.Deployed != "r1" || len(w.st.Children) != 6 {
		t.Fatalf("every admitted cluster back on r1 and no child dropped: %+v children %v", r, w.st.Children)
	}
}

func TestOnFailureContinueLetsTheRolloutFinish(t *testing.T) {
	phases := []spec.Phase{envPhase("dev", "dev", spec.Size{}, false)}
	phases[0].OnFailure = "continue"
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.degrade("dev-2")
	w.step(t, 10)
	if w.st.Rollout.Status != StatusCompleted || w.st.Rollout.Phases[0].Clusters["dev-2"].Status != ClusterFailed {
		t.Fatalf("continue: %+v", w.st.Rollout)
	}
}

func TestAFullPhaseAfterAHalfPhaseAdmitsTheRestAndCompletes(t *testing.T) {
	w := newWorld(envPhase("prod-half", "prod", pct(50), false), envPhase("prod", "prod", spec.Size{}, false))
	w.step(t, 0)
	w.syncs(5, "r2", "prod-1")
	w.step(t, 10)
	if fmt.Sprint(w.st.Rollout.Phases[1].Admitted) != "[prod-2]" {
		t.Fatalf("the full phase admits the rest: %+v", w.st.Rollout.Phases[1])
	}
	w.syncs(15, "r2", "prod-2")
	w.step(t, 20)
	if w.st.Rollout.Status != StatusCompleted {
		t.Fatalf("members admitted by the earlier phase count: %+v", w.st.Rollout)
	}
}

func TestStatusOnlyChangesDoNotAskForARerender(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1") // dev-1 becomes Done: a status change, no admission change
	view := w.st.ViewGeneration
	w.step(t, 10)
	if w.st.ViewGeneration != view || w.st.Generation == view {
		t.Fatalf("a status change is written but needs no re-render: view %d → %d, generation %d", view, w.st.ViewGeneration, w.st.Generation)
	}
}

func TestAChildTheNewRevisionDoesNotGenerateKeepsItsRevision(t *testing.T) {
	w := newWorld(envPhase("dev", "dev", spec.Size{}, false))
	// prod-2's cluster is missing from the inventory on this pass: no subject, no verdict.
	w.obs.Subjects = slices.DeleteFunc(w.obs.Subjects, func(s targets.Child) bool { return s.Key == "prod-2" })
	delete(w.obs.Changed, "prod-2")
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	if w.st.Rollout.Status != StatusCompleted {
		t.Fatalf("%+v", w.st.Rollout)
	}
	if w.st.Pinned["prod-2"] != "r1" {
		t.Fatalf("a child nobody decided to move stays on r1: pins %v", w.st.Pinned)
	}
}
