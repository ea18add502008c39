package rollout

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// gated is threePhases with an approval gate on staging (an entry gate also gates its size,
// as the parser does).
func gated(a spec.Approval, onFailure string) *world {
	phases := threePhases()
	phases[1].Approval, phases[1].OnFailure = &a, onFailure
	if !a.AfterChecks {
		phases[1].Size.Gate = true
	}
	return newWorld(phases...)
}

// answer is an approval (or with reject set, a rejection) of staging as the CLI writes it.
func answer(key, user, groups string) map[string]string {
	d := map[string]string{key: "staging", "approver": user, "by": user, "reason": "looks good"}
	if groups != "" {
		d["approver-groups"] = groups
	}
	return d
}

// TestTwoPersonApproval: approvals accumulate; the same person twice and a person outside
// the groups are recorded and do not count; the second distinct approver from sre opens
// the gate, and only then is staging admitted.
func TestTwoPersonApproval(t *testing.T) {
	w := gated(spec.Approval{Required: 2, Groups: []string{"sre"}}, "stop")
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	acts := w.step(t, 10)
	ph := &w.st.Rollout.Phases[1]
	if w.st.Rollout.Phase != 1 || len(ph.Admitted) != 0 || ph.Approval == nil || ph.Approval.AskedAt == nil || !slices.Contains(events(acts), EvAwaitingApproval) {
		t.Fatalf("staging asks before admitting: phase %d %+v events %v", w.st.Rollout.Phase, ph, events(acts))
	}
	steps := []struct {
		name, user, groups string
		counted            bool
		note, event        string
		open               bool
	}{
		{"alice from sre", "alice", "sre,system:authenticated", true, "", EvApprovalRecorded, false},
		{"alice again", "alice", "sre", false, "already approved: counts once", EvApprovalNotCounted, false},
		{"carol outside sre", "carol", "dev", false, "not in sre (groups: dev)", EvApprovalNotCounted, false},
		{"bob from sre", "bob", "sre", true, "", EvControlApplied, true},
	}
	for i, s := range steps {
		w.edit(answer("approve", s.user, s.groups))
		acts := w.step(t, 20+i)
		ph := w.st.Rollout.Phases[1]
		got := ph.Approval.Approvals[len(ph.Approval.Approvals)-1]
		if len(ph.Approval.Approvals) != i+1 || got.By != s.user || got.Counted != s.counted || !strings.Contains(got.Note, s.note) || !got.At.Equal(at(20+i)) || got.Reason != "looks good" {
			t.Fatalf("%s: recorded %+v", s.name, ph.Approval.Approvals)
		}
		if !slices.Contains(events(acts), s.event) || strings.Join(consumed(acts), ",") != "approve,approver,approver-groups" {
			t.Fatalf("%s: events %v consumed %v", s.name, events(acts), consumed(acts))
		}
		if open := len(ph.Admitted) == 2; open != s.open || (ph.ApprovedBy != "") != s.open {
			t.Fatalf("%s: admitted %v approvedBy %q", s.name, ph.Admitted, ph.ApprovedBy)
		}
		w.obs.Controls = nil // the agent consumed the keys
	}
	if ph := w.st.Rollout.Phases[1]; ph.ApprovedBy != `alice ("looks good"), bob ("looks good")` || ph.Approval.OpenedAt == nil || ph.Approval.Counted() != 2 {
		t.Fatalf("opened %+v by %q", ph.Approval, ph.ApprovedBy)
	}
	if warned := slices.ContainsFunc(acts, func(a Action) bool { return a.Reason == EvApprovalNotCounted && !a.Warning }); warned {
		t.Fatal("an approval that does not count is a Warning")
	}
	if w.finish(t, 100, "r2"); w.st.Rollout.Status != StatusCompleted {
		t.Fatalf("the rollout ends %s", w.st.Rollout.Status)
	}
}

// TestAnApprovalNamingNobodyCountsOnlyForAManualGate: the manual gate (maxUpdate: 0) keeps
// taking a hand edit without any name; a gate of several people or groups needs one.
func TestAnApprovalNamingNobodyCountsOnlyForAManualGate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		gate    spec.Approval
		counted bool
	}{
		{"one approval by anyone", spec.Approval{Required: 1}, true},
		{"two approvals", spec.Approval{Required: 2}, false},
		{"one from a group", spec.Approval{Required: 1, Groups: []string{"sre"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := gated(tc.gate, "stop")
			w.step(t, 0)
			w.syncs(5, "r2", "dev-1", "dev-2")
			w.step(t, 10)
			w.edit(map[string]string{"approve": "staging"})
			w.step(t, 11)
			if a := w.st.Rollout.Phases[1].Approval.Approvals; len(a) != 1 || a[0].Counted != tc.counted {
				t.Fatalf("%+v", a)
			}
		})
	}
}

// TestApprovalAfterChecks: the gate to leave staging asks once its members are done and
// its soak ended; an approval before that is refused and kept, and counts once asked.
func TestApprovalAfterChecks(t *testing.T) {
	w := gated(spec.Approval{Required: 1, Groups: []string{"sre"}, AfterChecks: true}, "stop")
	toSoak(t, w) // staging admitted without approval, soaking until 80
	if ph := w.st.Rollout.Phases[1]; len(ph.Admitted) != 2 || ph.Approval != nil {
		t.Fatalf("staging is admitted without asking: %+v", ph)
	}
	w.edit(answer("approve", "alice", "sre"))
	w.step(t, 30)
	if !strings.Contains(w.st.Rejected["approve"], "asks for approval only once its checks, soak and post-hooks passed") {
		t.Fatalf("an early approval: rejected %v", w.st.Rejected)
	}
	w.obs.Controls = nil
	acts := w.step(t, 90)
	if w.st.Rollout.Phase != 1 || w.st.Rollout.Phases[1].Approval.AskedAt == nil || !slices.Contains(events(acts), EvAwaitingApproval) {
		t.Fatalf("after the soak: phase %d events %v", w.st.Rollout.Phase, events(acts))
	}
	if acts := w.step(t, 200); slices.Contains(events(acts), EvAwaitingApproval) || w.st.Rollout.Phase != 1 {
		t.Fatal("asked twice, or went on without approval")
	}
	w.edit(answer("approve", "alice", "sre"))
	w.step(t, 210)
	if w.st.Rollout.Phase != 2 || w.st.Rollout.Phases[1].Status != PhaseSucceeded || len(w.st.Rollout.Phases[2].Admitted) != 1 {
		t.Fatalf("approved: phase %d %+v", w.st.Rollout.Phase, w.st.Rollout.Phases[1])
	}
}

// TestRejectFailsTheWaitingPhase: a rejection applies the phase's onFailure (continue
// stops: a person said no); one of a phase not waiting is refused and kept.
func TestRejectFailsTheWaitingPhase(t *testing.T) {
	for _, tc := range []struct {
		onFailure string
		want      state.RolloutStatus
	}{{"stop", StatusStopped}, {"continue", StatusStopped}, {"rollback", StatusRollingBack}} {
		t.Run(tc.onFailure, func(t *testing.T) {
			w := gated(spec.Approval{Required: 2}, tc.onFailure)
			w.step(t, 0)
			w.edit(answer("reject", "bob", "sre"))
			w.step(t, 1)
			if w.st.Rollout.Status != StatusProgressing || !strings.Contains(w.st.Rejected["reject"], "no approval gate open to refuse; the rollout is at dev") {
				t.Fatalf("a reject of a phase not current: %s %v", w.st.Rollout.Status, w.st.Rejected)
			}
			w.syncs(5, "r2", "dev-1", "dev-2")
			w.step(t, 10) // staging starts; the kept reject is read on the next pass
			acts := w.step(t, 11)
			ph := w.st.Rollout.Phases[1]
			if w.st.Rollout.Status != tc.want || ph.Status != PhaseFailed || ph.Approval.Rejection == nil || ph.Approval.Rejection.By != "bob" ||
				!strings.Contains(w.st.Rollout.Reason, `phase staging rejected by bob (groups sre): looks good`) || !slices.Contains(events(acts), EvPhaseRejected) {
				t.Fatalf("rollout %s %q phase %+v events %v", w.st.Rollout.Status, w.st.Rollout.Reason, ph, events(acts))
			}
			if strings.Join(consumed(acts), ",") != "approver,approver-groups,reject" || len(ph.Admitted) != 0 || len(w.st.Rejected) != 0 {
				t.Fatalf("consumed %v admitted %v", consumed(acts), ph.Admitted)
			}
		})
	}
}

// TestAnEmptyPhaseAsksNothing: an entry gate of a phase nobody takes part in holds nobody,
// as maxUpdate: 0 never did, so it asks for no approval.
func TestAnEmptyPhaseAsksNothing(t *testing.T) {
	w := gated(spec.Approval{Required: 2}, "stop")
	w.obs.Changed["staging-1"], w.obs.Changed["staging-2"] = false, false
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	acts := w.step(t, 10)
	if w.st.Rollout.Phase != 2 || slices.Contains(events(acts), EvAwaitingApproval) || w.st.Rollout.Phases[1].Approval != nil {
		t.Fatalf("phase %d events %v", w.st.Rollout.Phase, events(acts))
	}
}

// TestTheProgressDeadlineCountsFromTheFirstAdmission: a phase held an hour by its approval
// gate (or RollingSync's maxUpdate: 0) gives its members the whole progressDeadline once
// they are admitted, and errors them only when it ran out after that.
func TestTheProgressDeadlineCountsFromTheFirstAdmission(t *testing.T) {
	for _, tc := range []struct {
		name     string
		approval *spec.Approval
	}{
		{"an approval gate", &spec.Approval{Required: 1}},
		{"RollingSync maxUpdate: 0", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			phases := threePhases()
			phases[1].Approval, phases[1].Size.Gate = tc.approval, true
			phases[1].ProgressDeadline = 5 * time.Minute
			w := newWorld(phases...)
			w.step(t, 0)
			w.syncs(5, "r2", "dev-1", "dev-2")
			w.step(t, 10) // staging asks
			w.edit(answer("approve", "alice", ""))
			w.step(t, 3600) // approved an hour later: staging admitted
			w.obs.Controls = nil
			w.step(t, 3610)
			r := w.st.Rollout
			if r.Status != StatusProgressing || len(r.Phases[1].Admitted) != 2 || r.Phases[1].Clusters["staging-1"].Status != ClusterWaiting {
				t.Fatalf("members admitted after a late approval errored at once: %s %+v", r.Reason, r.Phases[1].Clusters)
			}
			w.step(t, 3600+299)
			if r = w.st.Rollout; r.Status != StatusProgressing {
				t.Fatalf("stopped before the deadline: %s", r.Reason)
			}
			w.step(t, 3600+300)
			if r = w.st.Rollout; r.Status != StatusStopped || r.Phases[1].Clusters["staging-1"].Status != ClusterErrored {
				t.Fatalf("the deadline did not run out 5 minutes after admission: %s %+v", r.Status, r.Phases[1].Clusters)
			}
		})
	}
}

// TestAnswersKeptForAnotherRolloutAreRemovedWhenANewOneStarts: an approve, reject or
// override-window kept while revision r2 rolled out (its gate had not asked yet) neither
// opens, fails nor overrides anything of r3's rollout: r3's start removes them, saying so.
func TestAnswersKeptForAnotherRolloutAreRemovedWhenANewOneStarts(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit map[string]string
		keys string // removed when r3 starts
	}{
		{"approve", answer("approve", "alice", "sre"), "approve,approver,approver-groups"},
		{"reject", answer("reject", "bob", ""), "approver,reject"},
		{"override-window", map[string]string{"override-window": "freeze", "by": "alice"}, "override-window"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := gated(spec.Approval{Required: 1}, "stop")
			w.step(t, 0)
			w.edit(tc.edit)
			w.step(t, 1) // dev still rolling: refused and kept
			w.plan.Revision, w.plan.Body = "r3", []byte(`{"v":3}`)
			w.plan.Phases[1].Windows = []spec.Window{win(t, "freeze", spec.WindowDeny, 0, 100000, "")}
			acts := w.step(t, 2)
			if r := w.st.Rollout; r.Revision != "r3" || strings.Join(consumed(acts), ",") != tc.keys {
				t.Fatalf("rollout %s consumed %v, want %s", r.Revision, consumed(acts), tc.keys)
			}
			if !slices.ContainsFunc(acts, func(a Action) bool {
				return a.Kind == ActEvent && a.Warning && strings.Contains(a.Message, "written for another rollout")
			}) {
				t.Fatalf("no warning: %+v", acts)
			}
			w.obs.Controls = nil // the agent removed them
			w.syncs(5, "r3", "dev-1", "dev-2")
			w.step(t, 10)
			r := w.st.Rollout
			if ph := r.Phases[1]; r.Status != StatusProgressing || ph.ApprovedBy != "" || ph.Override != "" || len(ph.Admitted) != 0 {
				t.Fatalf("an answer for r2 acted on r3: %s %+v", r.Status, ph)
			}
		})
	}
}
