package rollout

import (
	"slices"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
)

func confirmRemove(rev string) *control.Controls {
	return &control.Controls{ConfirmRemoveRollout: rev, By: "alice"}
}

// TestRemovingARolloutWhoseSpecIsGone: confirm-remove-rollout is refused while the spec is
// in git or when it names another revision; accepted, it is recorded and consumed, and it
// holds the engine (no rollout starts from the old plan) until the spec comes back.
func TestRemovingARolloutWhoseSpecIsGone(t *testing.T) {
	w := newWorld(threePhases()...)
	s := w.finish(t, 0, "r2")
	w.obs.Changed = map[string]bool{} // nothing would change: idle

	w.obs.Controls = confirmRemove("r2")
	acts := w.step(t, s+10)
	if w.st.RemovedRevision != "" || w.st.Rejected[contract.ConfirmRemoveRolloutKey] == "" || !hasEvent(acts, EvControlRejected) {
		t.Fatalf("the spec is still in git: removed %q rejected %v", w.st.RemovedRevision, w.st.Rejected)
	}
	if !slices.Contains(consumed(acts), contract.ConfirmRemoveRolloutKey) {
		t.Fatal("a refused confirmation stays in the ConfigMap, to confirm a spec that disappears later")
	}
	w.obs.SpecGone = true
	w.obs.Controls = confirmRemove("r1")
	w.step(t, s+20)
	if w.st.RemovedRevision != "" || w.st.Rejected[contract.ConfirmRemoveRolloutKey] == "" {
		t.Fatalf("another revision: removed %q rejected %v", w.st.RemovedRevision, w.st.Rejected)
	}
	w.obs.Controls = confirmRemove("r2")
	acts = w.step(t, s+30)
	if w.st.RemovedRevision != "r2" || !hasEvent(acts, EvRolloutRemovalConfirmed) || len(w.st.Rejected) != 0 {
		t.Fatalf("removed %q rejected %v events %v", w.st.RemovedRevision, w.st.Rejected, events(acts))
	}
	isConsumed := false
	for _, a := range acts {
		isConsumed = isConsumed || (a.Kind == ActConsume && a.Key == contract.ConfirmRemoveRolloutKey)
	}
	if !isConsumed {
		t.Fatal("the key is consumed")
	}
	w.obs.Controls = nil

	// The agent removed every child (TornDown); a new cluster joining starts nothing.
	w.st, _ = TornDown(w.st, "its spec is gone from git", at(s+40))
	w.obs.SpecGone, w.obs.SpecBack = false, true // the render is empty now, no error
	w.join("dev-3", "dev")
	before := w.st
	if w.step(t, s+50); w.st != before {
		t.Fatalf("a removed rollout starts nothing from the old plan: %+v", w.st.Rollout)
	}
	// The spec is back: a render after the removal arrived.
	w.obs.PlanFresh = true
	acts = w.step(t, s+60)
	if w.st.RemovedRevision != "" || !hasEvent(acts, EvRolloutRemovalCancelled) || !w.st.Rollout.Active() {
		t.Fatalf("the spec is back: removed %q events %v", w.st.RemovedRevision, events(acts))
	}
}

// TestTheSpecBackMidRemovalCancelsIt: children still there and the render works again.
func TestTheSpecBackMidRemovalCancelsIt(t *testing.T) {
	w := newWorld(threePhases()...)
	s := w.finish(t, 0, "r2")
	w.obs.SpecGone, w.obs.Controls = true, confirmRemove("r2")
	w.step(t, s+10)
	w.obs.SpecGone, w.obs.Controls = false, nil // another render error, or the parent not seen: no evidence
	if w.step(t, s+15); w.st.RemovedRevision != "r2" {
		t.Fatal("a transient render error cancelled a confirmed removal")
	}
	w.obs.SpecBack = true
	if acts := w.step(t, s+20); w.st.RemovedRevision != "" || !hasEvent(acts, EvRolloutRemovalCancelled) {
		t.Fatalf("removed %q", w.st.RemovedRevision)
	}
}
