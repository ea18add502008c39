package rollout

import (
	"fmt"
	"slices"
	"testing"
)

// TestAShardHoldsThePhaseAndItsReturnResumes: while a shard is not there nothing is
// admitted and no phase completes, with the reason naming the shard (one Event per reason);
// when it is back the rollout goes on from where it was and the reason is gone.
func TestAShardHoldsThePhaseAndItsReturnResumes(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	const why = `shard 2/3: parent "fleet-2" missing`
	w.obs.ShardHold = why
	acts := w.step(t, 10)
	r := w.st.Rollout
	if r.Phase != 0 || r.Reason != "held: "+why || !slices.Contains(events(acts), EvShardHeld) {
		t.Fatalf("phase %d reason %q events %v: the shard did not hold dev", r.Phase, r.Reason, events(acts))
	}
	if got := r.Phases[1].Admitted; len(got) != 0 {
		t.Fatalf("staging admitted %v while a shard held", got)
	}
	if acts = w.step(t, 20); len(events(acts)) != 0 || w.st.Rollout.Phase != 0 {
		t.Fatalf("the same hold again: events %v phase %d", events(acts), w.st.Rollout.Phase)
	}
	w.obs.ShardHold = `shard 1/3: parent "fleet-1" renders revision r1, shard 0 revision r2`
	if acts = w.step(t, 25); !slices.Contains(events(acts), EvShardHeld) {
		t.Fatalf("another reason is not told: %v", events(acts))
	}
	w.obs.ShardHold = ""
	w.step(t, 30)
	if r = w.st.Rollout; r.Phase != 1 || r.Reason != "" || len(r.Phases[1].Admitted) == 0 {
		t.Fatalf("back: phase %d reason %q staging admitted %v", r.Phase, r.Reason, r.Phases[1].Admitted)
	}
}

// TestAShardHoldStillRecordsDoneChildren: a member that synced while a shard holds is
// recorded Done at once (the hold does not delay what the state says), and a failed one
// Failed; the phase neither ends nor fails until the hold ends.
func TestAShardHoldStillRecordsDoneChildren(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	w.obs.ShardHold = `shard 2/3: parent "fleet-2" missing`
	w.syncs(5, "r2", "dev-1")
	w.syncs(5, "r2", "dev-2")
	w.degrade("dev-2")
	w.step(t, 10)
	r := w.st.Rollout
	if got := r.Phases[0].Clusters; got["dev-1"].Status != ClusterDone || got["dev-2"].Status != ClusterFailed {
		t.Fatalf("held: dev-1 %s dev-2 %s", got["dev-1"].Status, got["dev-2"].Status)
	}
	if r.Phase != 0 || r.Status != StatusProgressing || r.Phases[0].Status == PhaseFailed || len(r.Phases[1].Admitted) != 0 {
		t.Fatalf("held: phase %d %s %s, staging admitted %v", r.Phase, r.Status, r.Phases[0].Status, r.Phases[1].Admitted)
	}
	w.obs.ShardHold = ""
	w.step(t, 20)
	if r = w.st.Rollout; r.Status == StatusProgressing {
		t.Fatalf("the hold ended: the failure decides now, yet %s", r.Status)
	}
}

// TestAShardHoldsANewRollout: a rollout does not start while a shard is not there (the
// shards may still be rendering different commits).
func TestAShardHoldsANewRollout(t *testing.T) {
	w := newWorld(threePhases()...)
	w.obs.ShardHold = "shard 0/2: no plan"
	if w.step(t, 0); w.st.Rollout != nil || w.st.Generation != 1 {
		t.Fatalf("held, yet rollout %+v at generation %d", w.st.Rollout, w.st.Generation)
	}
	w.obs.ShardHold = ""
	w.step(t, 1)
	if w.st.Rollout == nil || len(w.st.Rollout.Phases[0].Admitted) == 0 {
		t.Fatalf("the hold ended but nobody is admitted: %+v", w.st.Rollout)
	}
}

// TestAShardHoldStillRecordsLeavers: a cluster that leaves while a shard holds the rollout
// is recorded in Leaving (its shard's render may leave it out; otherwise the render fails
// and the hold never ends), nothing is deleted while held, and the removal goes on once the
// hold ends.
func TestAShardHoldStillRecordsLeavers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		confirm bool
	}{
		{"removal", false},
		{"confirmRemoval", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(threePhases()...)
			w.plan.ConfirmRemoval = tc.confirm
			s := w.finish(t, 0, "r2")
			w.obs.ShardHold = `shard 1/2: parent "fleet-1" fails to render`
			w.leave("dev-2")
			acts := w.step(t, s+10)
			if len(w.st.Removing) != 0 || !slices.Equal(w.st.Leaving, []string{"dev-2"}) {
				t.Fatalf("held: removing %v leaving %v", w.st.Removing, w.st.Leaving)
			}
			if tc.confirm != hasEvent(acts, EvRemovalAwaitsConfirmation) {
				t.Fatalf("confirmRemoval %v: events %v", tc.confirm, events(acts))
			}
			w.obs.ShardHold = ""
			w.step(t, s+20)
			if want := !tc.confirm; slices.Equal(w.st.Removing, []string{"dev-2"}) != want {
				t.Fatalf("the hold ended: removing %v leaving %v", w.st.Removing, w.st.Leaving)
			}
		})
	}
}

// TestAShardHoldPastTheSplitRecordsNothing: once a rollout split into tracks, the rollout's
// phase index names no phase of its own; a hold then judges nobody (a track's phase it
// finished would be judged again, and a child's blip recorded as a failure for ever).
func TestAShardHoldPastTheSplitRecordsNothing(t *testing.T) {
	w := trackWorld(t, "stop")
	w.pastTheSplit(t)
	if r := w.st.Rollout; r.Phase < r.Split() {
		t.Fatalf("setup: phase %d split %d", r.Phase, r.Split())
	}
	before := fmt.Sprint(w.st.Rollout.Phases)
	w.degrade("eu-1")
	w.obs.ShardHold = `shard 1/2: parent "fleet-1" missing`
	w.step(t, 30)
	if after := fmt.Sprint(w.st.Rollout.Phases); after != before {
		t.Fatalf("a hold past the split judged a phase:\n%s\n%s", before, after)
	}
}
