package rollout

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// events are the names of the Event actions, in order.
func events(acts []Action) []string {
	var out []string
	for _, a := range acts {
		if a.Kind == ActEvent {
			out = append(out, a.Reason)
		}
	}
	return out
}

// join adds a cluster to the fleet whose child would change (a new cluster: no child yet).
func (w *world) join(key, env string) {
	w.obs.Subjects = append(w.obs.Subjects, subject(key, env))
	w.obs.Changed[key] = true
	delete(w.obs.Children, key)
}

// leave takes a cluster out of the fleet: the plan no longer generates its child.
func (w *world) leave(key string) {
	w.obs.Subjects = slices.DeleteFunc(w.obs.Subjects, func(s targets.Child) bool { return s.Key == key })
	delete(w.obs.Changed, key)
}

// finish settles the rollout's admitted children on rev at every step until it is terminal.
func (w *world) finish(t *testing.T, from int, rev string) int {
	t.Helper()
	s := from
	if w.st.Rollout == nil {
		w.step(t, s)
	}
	for ; !w.st.Rollout.Status.IsTerminal() && s < from+2000; s += 100 {
		w.syncs(s, rev, w.admitted()...)
		w.step(t, s+10)
		for k, o := range w.obs.Changed { // completed children run the deployed revision
			if o && w.st.Rollout.Status == StatusCompleted && slices.Contains(w.admitted(), k) {
				w.obs.Changed[k] = false
			}
		}
	}
	return s
}

func TestAProgressDeadlineErrorsMembersStillWaitingAndStopsTheRollout(t *testing.T) {
	phases := threePhases()
	phases[0].ProgressDeadline = 5 * time.Minute
	w := newWorld(phases...)
	acts := w.step(t, 0)
	if !slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == ActRequeue && a.At.Equal(at(300)) }) {
		t.Fatalf("the deadline is a requeue, not a sleep: %v", acts)
	}
	w.syncs(5, "r2", "dev-1") // dev-2 never syncs
	w.step(t, 299)
	if w.st.Rollout.Status != StatusProgressing {
		t.Fatal("stopped before the deadline")
	}
	w.step(t, 300)
	r := w.st.Rollout
	if r.Status != StatusStopped || r.Phases[0].Status != PhaseErrored || r.Phases[0].Clusters["dev-2"].Status != ClusterErrored {
		t.Fatalf("a member that never settled is Errored, not Failed: %+v", r)
	}
	if r.Phases[0].Clusters["dev-1"].Status != ClusterDone {
		t.Fatalf("dev-1 settled in time: %+v", r.Phases[0].Clusters)
	}
}

func TestMaxFailuresToleratesThatManyFailuresAndReportsEachOnce(t *testing.T) {
	phases := threePhases()
	phases[0].MaxFailures = 1
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.degrade("dev-2")
	acts := w.step(t, 10)
	if w.st.Rollout.Phase != 1 || w.st.Rollout.Phases[0].Clusters["dev-2"].Status != ClusterFailed {
		t.Fatalf("one failure within maxFailures 1: the phase succeeds and reports it: %+v", w.st.Rollout.Phases[0])
	}
	if n := slices.Index(events(acts), EvClusterFailed); n < 0 {
		t.Fatalf("the tolerated failure is reported: %v", events(acts))
	}
	w.syncs(15, "r2", "staging-1", "staging-2")
	if acts := w.step(t, 20); slices.Contains(events(acts), EvClusterFailed) {
		t.Fatal("reported twice")
	}
}

func TestOneFailureMoreThanMaxFailuresAppliesOnFailure(t *testing.T) {
	phases := threePhases()
	phases[0].MaxFailures = 1
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	for _, k := range []string{"dev-1", "dev-2"} {
		o := w.obs.Children[k]
		o.OperationPhase, o.OperationMessage = "Failed", "hook failed"
		w.obs.Children[k] = o
	}
	w.step(t, 10)
	if r := w.st.Rollout; r.Status != StatusStopped || r.Phases[0].Status != PhaseFailed {
		t.Fatalf("%+v", r)
	}
}

func TestALateJoinerIsDeferredToACatchUpRolloutThroughEveryPhase(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10) // staging admitted
	w.join("dev-3", "dev")
	acts := w.step(t, 11)
	if !slices.Equal(w.st.Rollout.Deferred, []string{"dev-3"}) || !slices.Contains(events(acts), EvClusterDeferred) {
		t.Fatalf("deferred %v, events %v", w.st.Rollout.Deferred, events(acts))
	}
	if slices.Contains(w.admitted(), "dev-3") {
		t.Fatal("a deferred joiner is not admitted by the running rollout")
	}
	s := w.finish(t, 20, "r2")
	if w.st.Deployed != "r2" || w.st.Rollout.Status != StatusCompleted {
		t.Fatalf("%+v", w.st.Rollout)
	}
	// Idle on r2: the joiner gets its own rollout of r2, starting at dev.
	w.step(t, s+100)
	r := w.st.Rollout
	if r.Revision != "r2" || r.Status != StatusProgressing || !slices.Equal(r.Phases[0].Admitted, []string{"dev-3"}) || len(r.Phases[2].Members) != 0 {
		t.Fatalf("catch-up rollout: %+v", r)
	}
	w.finish(t, s+200, "r2")
	if r := w.st.Rollout; r.Status != StatusCompleted || w.st.Pinned["dev-3"] != "" || !slices.Contains(w.st.Children, "dev-3") {
		t.Fatalf("the joiner is deployed: %+v %v", r, w.st.Children)
	}
	w.obs.Changed["dev-3"] = false
	before := w.st
	if w.step(t, s+5000); w.st != before {
		t.Fatalf("a completed catch-up starts nothing more: %+v", w.st.Rollout)
	}
}

func TestALateJoinerJoinsTheFirstPhaseNotStartedThatSelectsIt(t *testing.T) {
	w := newWorld(threePhases()...)
	w.plan.LateJoiners = spec.LateJoinersJoin
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10) // staging started
	w.join("prod-3", "prod")
	w.join("dev-3", "dev") // dev has started: deferred
	acts := w.step(t, 11)
	r := w.st.Rollout
	if !slices.Equal(r.Phases[2].Members, []string{"prod-1", "prod-2", "prod-3"}) || !slices.Equal(r.Deferred, []string{"dev-3"}) {
		t.Fatalf("prod members %v, deferred %v", r.Phases[2].Members, r.Deferred)
	}
	if !slices.Contains(events(acts), EvClusterJoined) {
		t.Fatalf("events %v", events(acts))
	}
}

func TestAClusterNoPhaseSelectsNeverStartsACatchUp(t *testing.T) {
	w := newWorld(threePhases()...)
	w.finish(t, 0, "r2")
	w.join("lab-1", "lab")
	before := w.st
	if w.step(t, 9000); w.st != before {
		t.Fatalf("started %+v", w.st.Rollout)
	}
}

func TestClustersThatLeaveAreRemovedInReversePhaseOrder(t *testing.T) {
	w := newWorld(threePhases()...)
	s := w.finish(t, 0, "r2")
	w.leave("dev-2")
	w.leave("prod-1")
	w.leave("prod-2") // left behind on r1 by the 50% phase: pinned, so its own revision decides
	acts := w.step(t, s+10)
	if !slices.Equal(w.st.Removing, []string{"prod-1"}) {
		t.Fatalf("prod first: removing %v, acts %v", w.st.Removing, acts)
	}
	if !slices.Equal(w.st.Leaving, []string{"dev-2"}) {
		t.Fatalf("dev-2 is decided too, so the render may leave it out: leaving %v", w.st.Leaving)
	}
	w.step(t, s+20) // prod-1 still live: still removing, dev-2 untouched
	if !slices.Equal(w.st.Removing, []string{"prod-1"}) {
		t.Fatalf("removing %v", w.st.Removing)
	}
	delete(w.obs.Children, "prod-1")
	w.step(t, s+30)
	if slices.Contains(w.st.Children, "prod-1") || !slices.Equal(w.st.Removing, []string{"dev-2"}) {
		t.Fatalf("children %v removing %v", w.st.Children, w.st.Removing)
	}
	delete(w.obs.Children, "dev-2")
	w.step(t, s+40)
	if len(w.st.Removing) != 0 || fmt.Sprint(w.st.Children) != "[dev-1 prod-2 staging-1 staging-2]" {
		t.Fatalf("children %v removing %v", w.st.Children, w.st.Removing)
	}
}

// TestAClusterLeavingDuringARemovalIsKnownToTheRender: a cluster that leaves while another
// group is being removed is recorded as leaving at once (the render would fail closed on
// it otherwise, and the removal in progress would wait for that render forever); one that
// comes back before its delete stays.
func TestAClusterLeavingDuringARemovalIsKnownToTheRender(t *testing.T) {
	w := newWorld(threePhases()...)
	s := w.finish(t, 0, "r2")
	w.leave("prod-1")
	w.step(t, s+10)
	w.leave("dev-2")
	w.step(t, s+20)
	if !slices.Equal(w.st.Removing, []string{"prod-1"}) || !slices.Equal(w.st.Leaving, []string{"dev-2"}) {
		t.Fatalf("removing %v leaving %v", w.st.Removing, w.st.Leaving)
	}
	w.obs.Subjects = append(w.obs.Subjects, subject("prod-1", "prod"))
	acts := w.step(t, s+30)
	if slices.Contains(w.st.Removing, "prod-1") || !slices.Contains(w.st.Children, "prod-1") || !hasEvent(acts, EvClusterReturned) {
		t.Fatalf("prod-1 came back before its delete: removing %v children %v", w.st.Removing, w.st.Children)
	}
}

func TestAnEmptyFleetNeverRemovesAnything(t *testing.T) {
	w := newWorld(threePhases()...)
	s := w.finish(t, 0, "r2")
	w.obs.Subjects = nil // the inventory came back empty
	before := w.st
	if w.step(t, s+10); w.st != before || len(w.st.Removing) != 0 {
		t.Fatalf("removing %v", w.st.Removing)
	}
}

func TestTheHistoryRecordsEveryTransitionOnceInOrder(t *testing.T) {
	w := newWorld(threePhases()...)
	w.finish(t, 0, "r2")
	var got []string
	for _, e := range w.st.Rollout.History {
		got = append(got, e.Event)
	}
	want := []string{EvRolloutStarted, EvPhaseStarted, EvPhaseSucceeded, EvPhaseStarted, EvPhaseSoaking, EvPhaseSucceeded,
		EvPhaseStarted, EvPhaseSucceeded, EvRolloutCompleted}
	if !slices.Equal(got, want) {
		t.Fatalf("history\n got %v\nwant %v", got, want)
	}
}

func TestStatusesKnowWhenTheyAreTerminal(t *testing.T) {
	for s, want := range map[state.RolloutStatus]bool{StatusProgressing: false, StatusRollingBack: false, StatusCompleted: true,
		StatusStopped: true, StatusAbandoned: true, StatusRolledBack: true} {
		if s.IsTerminal() != want {
			t.Errorf("%s.IsTerminal() = %v", s, !want)
		}
	}
	for s, want := range map[state.ClusterStatus]bool{ClusterWaiting: false, ClusterDone: true, ClusterFailed: true, ClusterErrored: true, state.ClusterReturning: false} {
		if s.IsTerminal() != want {
			t.Errorf("%s.IsTerminal() = %v", s, !want)
		}
	}
	if !ClusterErrored.Failure() || ClusterDone.Failure() || !PhaseErrored.IsTerminal() || PhaseSoaking.IsTerminal() {
		t.Error("failure and phase terminality")
	}
}

// TestConfirmRemovalWaitsForAPerson: with confirmRemoval nothing is deleted until a person
// names the children (or all); the wait is told once; the key is consumed when it acts.
func TestConfirmRemovalWaitsForAPerson(t *testing.T) {
	w := newWorld(threePhases()...)
	w.plan.ConfirmRemoval = true
	s := w.finish(t, 0, "r2")
	w.leave("prod-1")
	w.leave("dev-2")
	acts := w.step(t, s+10)
	if len(w.st.Removing) != 0 || !slices.Equal(w.st.Leaving, []string{"dev-2", "prod-1"}) || !hasEvent(acts, EvRemovalAwaitsConfirmation) {
		t.Fatalf("waits: removing %v leaving %v acts %v", w.st.Removing, w.st.Leaving, acts)
	}
	if acts := w.step(t, s+20); hasEvent(acts, EvRemovalAwaitsConfirmation) {
		t.Fatal("told once")
	}
	w.obs.Controls = &control.Controls{ConfirmRemoval: []string{"dev-2"}, By: "alice"}
	if w.step(t, s+30); len(w.st.Removing) != 0 {
		t.Fatalf("dev-2 alone does not confirm the prod group: %v", w.st.Removing)
	}
	w.obs.Controls = &control.Controls{ConfirmRemoval: []string{"prod-1"}, By: "alice"}
	acts = w.step(t, s+40)
	w.obs.Controls = nil
	if !slices.Equal(w.st.Removing, []string{"prod-1"}) || !slices.Equal(w.st.Leaving, []string{"dev-2"}) || !hasAct(acts, ActConsume) {
		t.Fatalf("prod-1 confirmed (dev-2 too, before): removing %v leaving %v", w.st.Removing, w.st.Leaving)
	}
	delete(w.obs.Children, "prod-1")
	w.step(t, s+50)
	if !slices.Equal(w.st.Removing, []string{"dev-2"}) || !slices.Equal(w.st.Confirmed, []string{"dev-2"}) {
		t.Fatalf("dev-2 was confirmed before: removing %v confirmed %v", w.st.Removing, w.st.Confirmed)
	}
}

// TestWithoutAProgressDeadlineTheDefaultEndsEveryWait: with no progressDeadline stated, a
// member that merely waits (its sync never starts), one that stays Progressing and one
// whose sync keeps failing on transient errors are each Errored DefaultProgressDeadline
// after their admission, and onFailure applies; the reason names the default and the fix.
func TestWithoutAProgressDeadlineTheDefaultEndsEveryWait(t *testing.T) {
	limit := int(DefaultProgressDeadline / time.Second)
	for name, wait := range map[string]func(w *world){
		"never synced": func(*world) {},
		"progressing": func(w *world) {
			w.syncs(5, "r2", "dev-2")
			o := w.obs.Children["dev-2"]
			o.Health = "Progressing"
			w.obs.Children["dev-2"] = o
		},
		"transient": func(w *world) { w.failsTransiently("dev-2", 30, 9, eofMsg) },
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(threePhases()...)
			acts := w.step(t, 0)
			if !slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == ActRequeue && a.At.Equal(at(limit)) }) {
				t.Fatalf("the default deadline is a requeue at %ds: %v", limit, acts)
			}
			w.syncs(5, "r2", "dev-1")
			wait(w)
			w.step(t, limit-1)
			if w.st.Rollout.Status != StatusProgressing {
				t.Fatal("stopped before the default deadline")
			}
			w.step(t, limit)
			r := w.st.Rollout
			cs := r.Phases[0].Clusters["dev-2"]
			if r.Status != StatusStopped || cs.Status != ClusterErrored {
				t.Fatalf("a member still waiting is Errored at the default: %s %+v", r.Status, r.Phases[0].Clusters)
			}
			if !strings.Contains(cs.Reason, "10m0s (the default; set progressDeadline") {
				t.Fatalf("the reason names the default deadline and the fix: %s", cs.Reason)
			}
		})
	}
}

// TestADefaultDeadlineCountsFromEachBatch: the default is each admission's own, so a
// phase admitting in batches is not judged by its first batch's clock.
func TestADefaultDeadlineCountsFromEachBatch(t *testing.T) {
	limit := int(DefaultProgressDeadline / time.Second)
	phases := threePhases()
	phases[0].Throttle = spec.Size{Kind: spec.SizeCount, Value: 1}
	w := newWorld(phases...)
	w.step(t, 0)
	first := w.admitted()
	w.syncs(limit-60, "r2", first...)
	w.step(t, limit-50) // the second batch admitted 50 s before the first one's deadline
	w.step(t, limit+10)
	if r := w.st.Rollout; r.Status != StatusProgressing || len(w.admitted()) != 2 {
		t.Fatalf("the second batch waits its own default: %s %+v", r.Status, r.Phases[0].Clusters)
	}
	w.step(t, 2*limit-50)
	if r := w.st.Rollout; r.Status != StatusStopped {
		t.Fatalf("the second batch is Errored at its own default: %s %+v", r.Status, r.Phases[0].Clusters)
	}
}

// TestProgressDeadlineNoneWaitsOnPurpose: "none" leaves the members waiting however long,
// a transient failure retried as long as it takes.
func TestProgressDeadlineNoneWaitsOnPurpose(t *testing.T) {
	limit := int(DefaultProgressDeadline / time.Second)
	phases := threePhases()
	phases[0].ProgressDeadline = spec.NoDeadline
	w := newWorld(phases...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.failsTransiently("dev-2", 30, 9, eofMsg)
	w.step(t, 10*limit)
	if r := w.st.Rollout; r.Status != StatusProgressing || r.Phases[0].DeadlineAt != nil || r.Phases[0].Clusters["dev-2"].Status != ClusterWaiting {
		t.Fatalf("none waits on purpose: %s %+v", r.Status, r.Phases[0])
	}
}
