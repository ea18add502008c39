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
)

// edit sets the person's edits for the next steps (what control.Parse would give).
func (w *world) edit(data map[string]string) {
	names := make([]string, len(w.plan.Phases))
	for i, p := range w.plan.Phases {
		names[i] = p.Name
	}
	c := control.Parse(data, names, t0)
	w.obs.Controls = &c
}

func consumed(acts []Action) []string {
	var out []string
	for _, a := range acts {
		if a.Kind == ActConsume {
			out = append(out, a.Key)
		}
	}
	slices.Sort(out)
	return out
}

// toSoak brings threePhases to staging's soak (until t0+80s).
func toSoak(t *testing.T, w *world) {
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	w.syncs(15, "r2", "staging-1", "staging-2")
	w.step(t, 20)
}

func TestAPauseDuringASoakHoldsPastItsEndAndResumeContinues(t *testing.T) {
	w := newWorld(threePhases()...)
	toSoak(t, w)
	w.edit(map[string]string{"pause": "error budget burning", "by": "alice"})
	acts := w.step(t, 30)
	if w.st.Paused == nil || w.st.Paused.By != "alice" || !slices.Contains(events(acts), EvPaused) {
		t.Fatalf("paused %+v, events %v", w.st.Paused, events(acts))
	}
	w.step(t, 200) // the soak ended at 80
	if w.st.Rollout.Phase != 1 {
		t.Fatal("the pause did not hold the rollout past the soak")
	}
	w.edit(map[string]string{"pause": "error budget burning", "resume": "", "by": "alice"})
	acts = w.step(t, 210)
	if w.st.Paused != nil || w.st.Rollout.Phase != 2 || strings.Join(consumed(acts), ",") != "pause,pause-until,resume" {
		t.Fatalf("resume: paused %+v phase %d consumed %v", w.st.Paused, w.st.Rollout.Phase, consumed(acts))
	}
}

func TestAPauseEndsWhenItsUntilPasses(t *testing.T) {
	w := newWorld(threePhases()...)
	toSoak(t, w)
	w.edit(map[string]string{"pause": "lunch", "pause-until": t0.Add(100 * time.Second).Format(time.RFC3339)})
	acts := w.step(t, 30)
	if !slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == ActRequeue && a.At.Equal(at(100)) }) {
		t.Fatalf("the expiry is a requeue: %v", acts)
	}
	acts = w.step(t, 100)
	if w.st.Paused != nil || w.st.Rollout.Phase != 2 || !slices.Contains(consumed(acts), "pause") {
		t.Fatalf("paused %+v phase %d", w.st.Paused, w.st.Rollout.Phase)
	}
}

func TestAnExpiredPauseIsRefusedNotGuessed(t *testing.T) {
	w := newWorld(threePhases()...)
	toSoak(t, w)
	w.edit(map[string]string{"pause": "x", "pause-until": t0.Add(-time.Hour).Format(time.RFC3339)})
	acts := w.step(t, 30)
	if w.st.Paused != nil || !strings.Contains(w.st.Rejected["pause-until"], "expired") || !slices.Contains(events(acts), EvControlRejected) {
		t.Fatalf("paused %+v rejected %v", w.st.Paused, w.st.Rejected)
	}
	if acts := w.step(t, 31); slices.Contains(events(acts), EvControlRejected) {
		t.Fatal("reported twice")
	}
}

func TestPromoteEndsTheSoakNow(t *testing.T) {
	w := newWorld(threePhases()...)
	toSoak(t, w)
	w.edit(map[string]string{"promote": "staging"})
	acts := w.step(t, 30)
	if w.st.Rollout.Phase != 2 || !slices.Contains(consumed(acts), "promote") {
		t.Fatalf("phase %d", w.st.Rollout.Phase)
	}
}

func TestApproveOpensAManualGate(t *testing.T) {
	w := newWorld(envPhase("dev", "dev", spec.Size{}, true), envPhase("prod", "prod", spec.Size{Kind: spec.SizeCount, Gate: true}, true))
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.step(t, 10)
	if len(w.st.Rollout.Phases[1].Admitted) != 0 {
		t.Fatal("the gate held nobody back")
	}
	w.edit(map[string]string{"approve": "prod", "by": "bob"})
	acts := w.step(t, 20)
	if w.st.Rollout.Phases[1].ApprovedBy != "bob" || len(w.st.Rollout.Phases[1].Admitted) != 2 || !slices.Contains(consumed(acts), "approve") {
		t.Fatalf("%+v", w.st.Rollout.Phases[1])
	}
}

func TestAJumpPastAnUnfinishedGateNeedsForce(t *testing.T) {
	phases := threePhases()
	phases[1].Size = spec.Size{Kind: spec.SizeCount, Gate: true}
	w := newWorld(phases...)
	w.step(t, 0)
	w.edit(map[string]string{"jump": "prod"})
	w.step(t, 1)
	if w.st.Rollout.Phase != 0 || !strings.Contains(w.st.Rejected["jump"], `unfinished gate of phase staging (fix: approve staging first, or add force: "true")`) {
		t.Fatalf("phase %d rejected %v", w.st.Rollout.Phase, w.st.Rejected)
	}
	w.edit(map[string]string{"jump": "prod", "force": "true"})
	acts := w.step(t, 2)
	if w.st.Rollout.Phase != 2 || strings.Join(consumed(acts), ",") != "force,jump" || len(w.st.Rejected) != 0 {
		t.Fatalf("phase %d consumed %v rejected %v", w.st.Rollout.Phase, consumed(acts), w.st.Rejected)
	}
	w.edit(map[string]string{"jump": "dev"})
	w.step(t, 3)
	if !strings.Contains(w.st.Rejected["jump"], "jumps go forward only") {
		t.Fatalf("%v", w.st.Rejected)
	}
}

func TestAbortStopsAndRollbackReturns(t *testing.T) {
	w := newWorld(threePhases()...)
	toSoak(t, w)
	w.edit(map[string]string{"abort": "wrong config", "by": "carol"})
	w.step(t, 30)
	if r := w.st.Rollout; r.Status != StatusStopped || r.Reason != "aborted by carol: wrong config" {
		t.Fatalf("%s %q", r.Status, r.Reason)
	}
	w.edit(map[string]string{"rollback": "back to r1", "by": "carol"})
	acts := w.step(t, 31)
	if r := w.st.Rollout; r.Status != StatusRollingBack || len(r.Phases[1].Returning) != 2 || !slices.Contains(consumed(acts), "rollback") {
		t.Fatalf("a stopped rollout can still be rolled back: %s %+v", r.Status, r.Phases[1])
	}
}

func TestSkipLetsARolloutWithADegradedClusterFinish(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1", "dev-2")
	w.degrade("dev-2")
	w.edit(map[string]string{"skip": "dev-2", "by": "dave"})
	w.step(t, 10)
	r := w.st.Rollout
	if r.Status != StatusProgressing || r.Phase != 1 || r.Phases[0].Clusters["dev-2"].Status != state.ClusterSkipped {
		t.Fatalf("%s phase %d %+v", r.Status, r.Phase, r.Phases[0].Clusters)
	}
	w.edit(map[string]string{"skip": "prod-1, nope"})
	w.step(t, 11)
	if !strings.Contains(w.st.Rejected["skip"], "no child nope") || !slices.Equal(w.st.Rollout.Skipped, []string{"prod-1"}) {
		t.Fatalf("skipped %v rejected %v", w.st.Rollout.Skipped, w.st.Rejected)
	}
}

// rejected counts the ControlRejected Events of acts.
func rejected(acts []Action) int { return countEvents(acts, EvControlRejected) }

// TestABadSkipKeyIsReportedOncePerChange: a skip key naming 80,000 children the rollout
// does not have was one Event and one log line per name on every pass (issue 47). It is
// one refusal, reported when the key changes and not again while it stays; the children
// it does know are skipped.
func TestABadSkipKeyIsReportedOncePerChange(t *testing.T) {
	w := newWorld(threePhases()...)
	w.step(t, 0)
	names := []string{"prod-1"}
	for i := range 80000 {
		names = append(names, fmt.Sprintf("nope-%05d", i))
	}
	w.edit(map[string]string{"skip": strings.Join(names, ",")})
	start := time.Now()
	if n := rejected(w.step(t, 1)); n != 1 {
		t.Fatalf("%d refusals reported for one bad key, want 1", n)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a pass over 80,000 bad names took %v", took)
	}
	for pass := 2; pass < 5; pass++ {
		if n := rejected(w.step(t, pass)); n != 0 {
			t.Fatalf("pass %d reported the same bad key again (%d Events)", pass, n)
		}
	}
	if msg := w.st.Rejected["skip"]; !strings.Contains(msg, "no children nope-00000, nope-00001, nope-00002 and 79997 more") || len(msg) > 2*control.MaxReason {
		t.Fatalf("the refusal is %d bytes: %.300s", len(msg), msg)
	}
	if !slices.Equal(w.st.Rollout.Skipped, []string{"prod-1"}) {
		t.Fatalf("skipped %v", w.st.Rollout.Skipped)
	}
	w.edit(map[string]string{"skip": "prod-1,nope-x"})
	if n := rejected(w.step(t, 6)); n != 1 {
		t.Fatalf("a changed bad key reported %d times, want once", n)
	}
}
