package rollout

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// trackWorld rolls r2 out over dev-1 (shared phase dev), then per region: prod (half of
// the region's prod children, soaking 1m, tracks: labels.region) and final (the rest).
// Every child runs r1.
func trackWorld(t *testing.T, onFailure string) *world {
	t.Helper()
	tr := spec.Tracks{Src: "labels.region"}
	if err := tr.Compile(nil); err != nil {
		t.Fatal(err)
	}
	prod, final := envPhase("prod", "prod", pct(50), false), envPhase("final", "prod", spec.Size{}, false)
	prod.Tracks, prod.WaitDuration, prod.OnFailure, final.OnFailure = tr, time.Minute, onFailure, onFailure
	w := &world{
		plan: plan.Plan{Revision: "r2", Body: json.RawMessage(`{"v":2}`), Phases: []spec.Phase{envPhase("dev", "dev", spec.Size{}, false), prod, final}},
		st: &state.State{Schema: state.Schema, Generation: 1, Deployed: "r1",
			Revisions: map[string]json.RawMessage{"r1": json.RawMessage(`{"v":1}`)}},
		obs: Observed{Changed: map[string]bool{}, Children: map[string]Observation{}},
	}
	for _, c := range []struct{ key, env, region string }{{"dev-1", "dev", "eu"}, {"eu-1", "prod", "eu"}, {"eu-2", "prod", "eu"}, {"us-1", "prod", "us"}, {"us-2", "prod", "us"}} {
		w.obs.Subjects = append(w.obs.Subjects, targets.Child{Key: c.key, Subject: targets.Subject{Name: c.key, Labels: map[string]string{"env": c.env, "region": c.region}}})
		w.obs.Changed[c.key] = true
		w.st.Children = append(w.st.Children, c.key)
		w.obs.Children[c.key] = Observation{Revision: "r1", SpecCompared: true, SyncStatus: "Synced", ReconciledAt: at(-100), Health: "Healthy"}
	}
	return w
}

// track is the named track of the rollout and where it is.
func (w *world) track(t *testing.T, name string) (state.Track, string) {
	t.Helper()
	r := w.st.Rollout
	i := slices.IndexFunc(r.Tracks, func(x state.Track) bool { return x.Name == name })
	if i < 0 {
		t.Fatalf("no track %s: %+v", name, r.Tracks)
	}
	tr := r.Tracks[i]
	if tr.Phase < len(r.Phases) {
		return tr, r.Phases[tr.Phase].Name
	}
	return tr, ""
}

// pastTheSplit takes trackWorld through dev into both tracks' prod, eu-1 synced (t0+20s).
func (w *world) pastTheSplit(t *testing.T) {
	t.Helper()
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	w.syncs(15, "r2", "eu-1")
	w.step(t, 20)
}

// admittedIn is who the named track's copy of phase admitted.
func (w *world) admittedIn(phase, track string) string {
	for _, ph := range w.st.Rollout.Phases {
		if ph.Name == phase && ph.Track == track {
			return fmt.Sprint(ph.Admitted)
		}
	}
	return "no such phase"
}

// stepAgain checks crash safety: Step from the state just written (through the codec),
// with the same observations at the same time, admits, returns and moves nothing more (it
// may record why a child waits).
func (w *world) stepAgain(t *testing.T, s int) {
	t.Helper()
	b, err := state.Encode(w.st)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := state.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	next, _, err := Step(w.plan, cur, w.obs, at(s))
	if err != nil || !reflect.DeepEqual(renderView(next), renderView(w.st)) || !reflect.DeepEqual(next.Rollout.Tracks, w.st.Rollout.Tracks) {
		t.Fatalf("a second pass from the written state decided something else (err %v): %+v", err, next.Rollout)
	}
}

func TestTheRolloutSplitsIntoTracksFromTheTracksPhase(t *testing.T) {
	w := trackWorld(t, "stop")
	w.step(t, 0)
	r := w.st.Rollout
	var got []string
	for _, ph := range r.Phases {
		got = append(got, fmt.Sprintf("%s@%s%v", ph.Name, ph.Track, ph.Members))
	}
	if want := "[dev@[dev-1] prod@eu[eu-1 eu-2] final@eu[eu-1 eu-2] prod@us[us-1 us-2] final@us[us-1 us-2]]"; fmt.Sprint(got) != want {
		t.Fatalf("phases %v, want %s", got, want)
	}
	if fmt.Sprint(r.Tracks) != fmt.Sprint([]state.Track{{Name: "eu", Phase: 1, Status: StatusProgressing}, {Name: "us", Phase: 3, Status: StatusProgressing}}) {
		t.Fatalf("tracks %+v", r.Tracks)
	}
	if r.Phase != 0 || w.admittedIn("dev", "") != "[dev-1]" || len(w.admitted()) != 1 {
		t.Fatalf("the shared phase goes first: phase %d admitted %v", r.Phase, w.admitted())
	}
	w.stepAgain(t, 0)
}

func TestTracksMoveIndependently(t *testing.T) {
	w := trackWorld(t, "stop")
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	w.stepAgain(t, 10)
	if w.admittedIn("prod", "eu") != "[eu-1]" || w.admittedIn("prod", "us") != "[us-1]" {
		t.Fatalf("both tracks start their prod: eu %s us %s", w.admittedIn("prod", "eu"), w.admittedIn("prod", "us"))
	}
	w.syncs(15, "r2", "eu-1")
	w.step(t, 20) // eu soaks until t0+80s; us waits on us-1
	w.step(t, 80)
	w.stepAgain(t, 80)
	if eu, at := w.track(t, "eu"); at != "final" || eu.Status != StatusProgressing || w.admittedIn("final", "eu") != "[eu-2]" {
		t.Fatalf("eu moves on alone to final, admitting the rest of eu: %+v at %s, %s", eu, at, w.admittedIn("final", "eu"))
	}
	if _, at := w.track(t, "us"); at != "prod" || w.admittedIn("final", "us") != "[]" {
		t.Fatalf("us stays at prod: %s %s", at, w.admittedIn("final", "us"))
	}
	w.syncs(85, "r2", "eu-2")
	acts := w.step(t, 90)
	if eu, _ := w.track(t, "eu"); eu.Status != StatusCompleted || eu.EndedAt != at(90) || w.st.Rollout.Status != StatusProgressing {
		t.Fatalf("eu completed, the rollout goes on: %+v %s", eu, w.st.Rollout.Status)
	}
	if !slices.ContainsFunc(acts, func(a Action) bool {
		return a.Reason == EvTrackCompleted && strings.HasPrefix(a.Message, "track eu: ")
	}) {
		t.Fatalf("the track's Event names it: %v", acts)
	}
	w.syncs(95, "r2", "us-1")
	w.step(t, 100)
	w.step(t, 160)
	w.syncs(165, "r2", "us-2")
	acts = w.step(t, 170)
	if r := w.st.Rollout; r.Status != StatusCompleted || w.st.Deployed != "r2" || !hasEvent(acts, EvRolloutCompleted) {
		t.Fatalf("every track completed: the rollout did: %s deployed %s", r.Status, w.st.Deployed)
	}
	for _, e := range w.st.Rollout.History {
		if e.Event == EvPhaseSucceeded && strings.Contains(e.Message, "phase prod") && !strings.HasPrefix(e.Message, "track ") {
			t.Fatalf("a track's history names it: %+v", e)
		}
	}
}

// TestOneTrackFailsWhileTheOtherCompletes: onFailure applies to the failing track only;
// the rollout then ends Stopped, not Completed: its revision is not the deployed one, and
// each child runs what its track decided.
func TestOneTrackFailsWhileTheOtherCompletes(t *testing.T) {
	cases := map[string]struct {
		onFailure string
		track     state.RolloutStatus
		eu1       string
	}{
		"rollback": {"rollback", StatusRolledBack, "r1"},
		"stop":     {"stop", StatusStopped, "r2"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := trackWorld(t, c.onFailure)
			w.step(t, 0)
			w.syncs(5, "r2", "dev-1")
			w.step(t, 10)
			w.syncs(15, "r2", "eu-1", "us-1")
			w.degrade("eu-1")
			acts := w.step(t, 20)
			w.stepAgain(t, 20)
			if us, at := w.track(t, "us"); us.Status != StatusProgressing || at != "prod" || w.st.Rollout.Status != StatusProgressing {
				t.Fatalf("us goes on: %+v at %s, rollout %s", us, at, w.st.Rollout.Status)
			}
			if !slices.ContainsFunc(acts, func(a Action) bool { return a.Warning && strings.HasPrefix(a.Message, "track eu: ") }) {
				t.Fatalf("a Warning names the track: %v", acts)
			}
			w.syncs(25, "r1", "eu-1") // back on r1 (the renderer renders it there once it left Admitted)
			w.step(t, 30)
			if eu, _ := w.track(t, "eu"); eu.Status != c.track || !strings.Contains(eu.Reason, "eu-1") {
				t.Fatalf("eu %+v, want %s", eu, c.track)
			}
			w.step(t, 80)
			w.syncs(85, "r2", "us-2")
			acts = w.step(t, 90)
			r := w.st.Rollout
			if us, _ := w.track(t, "us"); us.Status != StatusCompleted || r.Status != StatusStopped || w.st.Deployed != "r1" || !hasEvent(acts, EvRolloutStopped) {
				t.Fatalf("us completed %+v; the rollout %s (deployed %s)", us, r.Status, w.st.Deployed)
			}
			if !strings.Contains(r.Reason, "eu "+string(c.track)) || !strings.Contains(r.Reason, "keep revision r2") {
				t.Fatalf("reason %q", r.Reason)
			}
			runs := map[string]string{}
			for _, k := range []string{"dev-1", "eu-1", "eu-2", "us-1", "us-2"} {
				runs[k], _, _ = w.st.RevisionOf(k)
			}
			want := map[string]string{"dev-1": "r2", "eu-1": c.eu1, "eu-2": "r1", "us-1": "r2", "us-2": "r2"}
			if fmt.Sprint(runs) != fmt.Sprint(want) {
				t.Fatalf("revisions %v, want %v", runs, want)
			}
			w.stepAgain(t, 90)
		})
	}
}

// TestTheRolloutWideBudgetCountsEveryTrack: a failure in one track (tolerated by its
// phase) spends the rollout-wide budget of another.
func TestTheRolloutWideBudgetCountsEveryTrack(t *testing.T) {
	w := trackWorld(t, "stop")
	w.plan.MaxFailures = count(0)
	w.plan.Phases[1].MaxFailures, w.plan.Phases[2].MaxFailures = 1, 1
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	w.syncs(15, "r2", "eu-1", "us-1")
	w.degrade("eu-1")
	w.step(t, 20)
	eu, _ := w.track(t, "eu")
	us, _ := w.track(t, "us")
	if eu.Status != StatusStopped || us.Status != StatusStopped || !strings.Contains(us.Reason, "rollout-wide failure budget") {
		t.Fatalf("eu %+v us %+v", eu, us)
	}
	if w.st.Rollout.Status != StatusStopped {
		t.Fatalf("rollout %s", w.st.Rollout.Status)
	}
}

// TestPerTrackHooks: a phase's hook runs once per track, each run named by its track and
// at its track's phase; one track's result moves that track only.
func TestPerTrackHooks(t *testing.T) {
	w := trackWorld(t, "stop")
	w.plan.Phases[1].PreHooks = []spec.Hook{httpHook("notify", "http://hooks.example/{{.track.name}}", "fail")}
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	acts := w.step(t, 10)
	var got []string
	for _, a := range acts {
		if a.Kind == ActRunHook {
			got = append(got, fmt.Sprintf("%s %s %s", a.Key, a.Track, w.st.Rollout.Phases[a.Phase].Track))
		}
	}
	if fmt.Sprint(got) != "[pre/notify eu eu pre/notify us us]" {
		t.Fatalf("runs %v", got)
	}
	if w.admittedIn("prod", "eu") != "[]" {
		t.Fatal("pre-hooks run before anyone is admitted")
	}
	w.obs.TrackHooks = map[string]map[string]HookResult{"us": {"pre/notify": {Status: state.HookSucceeded, Attempts: 1, FinishedAt: at(11)}}}
	w.step(t, 12)
	if w.admittedIn("prod", "eu") != "[]" || w.admittedIn("prod", "us") != "[us-1]" {
		t.Fatalf("only us's run ended: eu %s us %s", w.admittedIn("prod", "eu"), w.admittedIn("prod", "us"))
	}
}

// TestApprovalsAndJumpsWithTracks: approve names a phase and opens it in every track
// waiting there; an approval of a phase no track waits at, and a jump, are refused.
func TestApprovalsAndJumpsWithTracks(t *testing.T) {
	w := trackWorld(t, "stop")
	w.plan.Phases[1].Approval = &spec.Approval{Required: 1}
	w.plan.Phases[1].Size.Gate = true
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	if w.admittedIn("prod", "eu") != "[]" || w.admittedIn("prod", "us") != "[]" {
		t.Fatal("both tracks wait for approval")
	}
	w.edit(map[string]string{"jump": "final", "by": "alice"})
	w.step(t, 11)
	if !strings.Contains(w.st.Rejected["jump"], "jumps do not cross them") {
		t.Fatalf("rejected %v", w.st.Rejected)
	}
	w.edit(map[string]string{"approve": "final", "by": "alice"})
	w.step(t, 12)
	if !strings.Contains(w.st.Rejected["approve"], "no track is at phase final") {
		t.Fatalf("rejected %v", w.st.Rejected)
	}
	w.edit(map[string]string{"approve": "prod", "by": "alice"})
	w.step(t, 13)
	if w.admittedIn("prod", "eu") != "[eu-1]" || w.admittedIn("prod", "us") != "[us-1]" {
		t.Fatalf("approve opens prod in every track: eu %s us %s", w.admittedIn("prod", "eu"), w.admittedIn("prod", "us"))
	}
}

// TestAWindowHoldsATrackAtItsPhase: a deny window on final holds each track when it gets
// there (the rollout shows the hold), not a track at another phase; once the window ends
// the track goes on.
func TestAWindowHoldsATrackAtItsPhase(t *testing.T) {
	w := trackWorld(t, "stop")
	w.plan.Phases[2].Windows = []spec.Window{win(t, "freeze", spec.WindowDeny, 50, 200, "")}
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	w.syncs(15, "r2", "eu-1")
	w.step(t, 20)
	w.step(t, 80)
	if _, at := w.track(t, "eu"); at != "final" || w.admittedIn("final", "eu") != "[]" || w.st.Rollout.Window == nil || w.st.Rollout.Window.Phase != "final" {
		t.Fatalf("eu held at final: %s %s %+v", at, w.admittedIn("final", "eu"), w.st.Rollout.Window)
	}
	w.syncs(85, "r2", "us-1")
	w.step(t, 90)
	if us, at := w.track(t, "us"); at != "prod" || us.Status != StatusProgressing || w.st.Rollout.Phases[3].Status != PhaseSoaking {
		t.Fatalf("us walks prod regardless: %+v at %s", us, at)
	}
	w.step(t, 200)
	if w.admittedIn("final", "eu") != "[eu-2]" {
		t.Fatalf("the window ended: eu admits final: %s", w.admittedIn("final", "eu"))
	}
}

// TestARollbackKeyReturnsEveryTrack: rollback keeps its rollout-wide meaning: every
// track's children and then the shared phase's return.
func TestARollbackKeyReturnsEveryTrack(t *testing.T) {
	w := trackWorld(t, "stop")
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	w.edit(map[string]string{"rollback": "bad", "by": "alice"})
	w.step(t, 11)
	w.obs.Controls = nil
	for s := 12; s < 20 && w.st.Rollout.Status == StatusRollingBack; s++ {
		w.syncs(s, "r1", "dev-1", "eu-1", "us-1")
		w.step(t, s+1)
	}
	if r := w.st.Rollout; r.Status != StatusRolledBack || len(w.admitted()) != 0 {
		t.Fatalf("every track and dev returned: %s %v", r.Status, w.admitted())
	}
	for _, name := range []string{"eu", "us"} {
		if tr, _ := w.track(t, name); tr.Status != StatusRolledBack || tr.EndedAt.IsZero() {
			t.Fatalf("the tracks follow the rollout: %+v", tr)
		}
	}
}

func TestTracksFollowTheRollout(t *testing.T) {
	cases := map[string]struct {
		rollout state.RolloutStatus
		tracks  []state.RolloutStatus
		want    string
	}{
		"progressing: each its own":      {StatusProgressing, []state.RolloutStatus{StatusProgressing, StatusRolledBack}, "[Progressing RolledBack]"},
		"aborted: a completed one stays": {StatusStopped, []state.RolloutStatus{StatusProgressing, StatusCompleted}, "[Stopped Completed]"},
		"rolling back: every track":      {StatusRollingBack, []state.RolloutStatus{StatusCompleted, StatusStopped, StatusRolledBack}, "[RollingBack RollingBack RolledBack]"},
		"rolled back: every track":       {StatusRolledBack, []state.RolloutStatus{StatusRollingBack, StatusCompleted}, "[RolledBack RolledBack]"},
		"completed: nothing to follow":   {StatusCompleted, []state.RolloutStatus{StatusCompleted}, "[Completed]"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := &state.Rollout{Status: c.rollout}
			for i, s := range c.tracks {
				r.Tracks = append(r.Tracks, state.Track{Name: fmt.Sprint(i), Status: s})
			}
			followRollout(r, at(5))
			var got []state.RolloutStatus
			for _, tr := range r.Tracks {
				got = append(got, tr.Status)
			}
			if fmt.Sprint(got) != c.want {
				t.Fatalf("got %v, want %s", got, c.want)
			}
		})
	}
}

// TestARejectionFailsOnlyTheTracksAtThatPhase: reject names a phase; the tracks waiting at
// it take its onFailure, a track elsewhere goes on.
func TestARejectionFailsOnlyTheTracksAtThatPhase(t *testing.T) {
	w := trackWorld(t, "rollback")
	w.plan.Phases[2].Approval = &spec.Approval{Required: 1}
	w.plan.Phases[2].Size.Gate = true
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	w.syncs(15, "r2", "eu-1")
	w.step(t, 20)
	w.step(t, 80) // eu waits for approval at final; us is still at prod
	w.edit(map[string]string{"reject": "final", "by": "alice", "reason": "not now"})
	acts := w.step(t, 81)
	w.obs.Controls = nil
	eu, _ := w.track(t, "eu")
	us, at := w.track(t, "us")
	if eu.Status != StatusRollingBack || !strings.Contains(eu.Reason, "rejected by alice") || us.Status != StatusProgressing || at != "prod" {
		t.Fatalf("eu %+v; us %+v at %s", eu, us, at)
	}
	if !hasEvent(acts, EvTrackRollingBack) || w.st.Rollout.Status != StatusProgressing {
		t.Fatalf("events %v rollout %s", events(acts), w.st.Rollout.Status)
	}
	w.syncs(85, "r1", "eu-1")
	w.step(t, 90)
	if eu, _ := w.track(t, "eu"); eu.Status != StatusRolledBack || w.admittedIn("prod", "eu") != "[]" || w.admittedIn("dev", "") != "[dev-1]" {
		t.Fatalf("eu returned its own phases only: %+v dev %s", eu, w.admittedIn("dev", ""))
	}
}

// TestNobodyAfterTheSplitSplitsNothing: when no child taking part is in the tracks phase
// or after it, the phases stay shared and the rollout completes as without tracks.
func TestNobodyAfterTheSplitSplitsNothing(t *testing.T) {
	w := trackWorld(t, "stop")
	for _, k := range []string{"eu-1", "eu-2", "us-1", "us-2"} {
		w.obs.Changed[k] = false // render the same at r2: take no part
	}
	w.step(t, 0)
	if r := w.st.Rollout; len(r.Tracks) != 0 || len(r.Phases) != 3 {
		t.Fatalf("tracks %+v, %d phases", r.Tracks, len(r.Phases))
	}
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	if w.st.Rollout.Status != StatusCompleted {
		t.Fatalf("rollout %s", w.st.Rollout.Status)
	}
}

// TestTwoTracksHeldAtDifferentPhasesCostNoWritePerPass: each track keeps its own window
// hold, so passes that change nothing write nothing and tell nobody again.
func TestTwoTracksHeldAtDifferentPhasesCostNoWritePerPass(t *testing.T) {
	w := trackWorld(t, "stop")
	w.plan.Phases[2].Windows = []spec.Window{win(t, "freeze", spec.WindowDeny, 50, 500, "")}
	w.obs.ProjectWindows = map[string][]spec.Window{"us-1": {win(t, "appproject/team/0", spec.WindowDeny, 8, 500, "")}}
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	w.syncs(15, "r2", "eu-1")
	w.step(t, 20)
	w.step(t, 80)
	eu, euAt := w.track(t, "eu")
	us, usAt := w.track(t, "us")
	if euAt != "final" || usAt != "prod" || eu.Window == nil || us.Window == nil || eu.Window.Phase != "final" || us.Window.Phase != "prod" || w.st.Rollout.Window == nil {
		t.Fatalf("eu held at final, us at prod: eu %s %+v us %s %+v", euAt, eu.Window, usAt, us.Window)
	}
	written, err := state.Encode(w.st)
	if err != nil {
		t.Fatal(err)
	}
	for s := 81; s <= 88; s++ {
		for _, a := range w.step(t, s) {
			if a.Kind == ActEvent {
				t.Fatalf("pass at %ds tells again: %s %s", s, a.Reason, a.Message)
			}
		}
		b, err := state.Encode(w.st)
		if err != nil || string(b) != string(written) {
			t.Fatalf("pass at %ds writes the state again (err %v):\n%s\nwas\n%s", s, err, b, written)
		}
	}
}

// TestResumeRunsATracksInconclusiveCheckAgain: the engine's pause names the track's phase,
// and resume runs the check again there (the rollout's own phase stays at the split).
func TestResumeRunsATracksInconclusiveCheckAgain(t *testing.T) {
	w := trackWorld(t, "stop")
	w.plan.Phases[1].Checks = []spec.Hook{metricCheck("success-rate", "", 1)}
	w.edit(map[string]string{})
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	w.syncs(15, "r2", "us-1")
	w.step(t, 20)
	w.obs.TrackHooks = map[string]map[string]HookResult{"us": {"check/success-rate": {Status: state.HookInconclusive, Attempts: 1, FinishedAt: at(21), Message: "no data"}}}
	w.step(t, 22)
	w.obs.TrackHooks = nil
	if p := w.st.Paused; p == nil || !strings.Contains(p.Reason, "phase prod@us:") {
		t.Fatalf("the pause names the track's phase: %+v", p)
	}
	w.edit(map[string]string{"resume": "yes"})
	acts := w.step(t, 30)
	us, _ := w.track(t, "us")
	run := w.st.Rollout.Phases[us.Phase].Hooks["check/success-rate"]
	if w.st.Paused != nil || run.Status != state.HookRunning || !run.StartedAt.Equal(at(30)) || fmt.Sprint(runs(acts)) != "[check/success-rate]" {
		t.Fatalf("resume runs the check again from scratch: paused %+v, run %+v, runs %v", w.st.Paused, run, runs(acts))
	}
}

// TestTheEnginesPauseHoldsTheOtherTracksInTheSamePass: once one track's Inconclusive check
// pauses the rollout, the other tracks do not walk on in that pass (one pause, one Event).
func TestTheEnginesPauseHoldsTheOtherTracksInTheSamePass(t *testing.T) {
	w := trackWorld(t, "stop")
	w.plan.Phases[1].Checks = []spec.Hook{metricCheck("success-rate", "", 1)}
	w.edit(map[string]string{})
	w.step(t, 0)
	w.syncs(5, "r2", "dev-1")
	w.step(t, 10)
	w.syncs(15, "r2", "eu-1", "us-1")
	w.step(t, 20)
	inconclusive := map[string]HookResult{"check/success-rate": {Status: state.HookInconclusive, Attempts: 1, FinishedAt: at(21), Message: "no data"}}
	w.obs.TrackHooks = map[string]map[string]HookResult{"eu": inconclusive, "us": inconclusive}
	acts := w.step(t, 22)
	n := 0
	for _, a := range acts {
		if a.Kind == ActEvent && a.Reason == EvCheckInconclusive {
			n++
		}
	}
	if p := w.st.Paused; p == nil || !strings.Contains(p.Reason, "phase prod@eu:") || n != 1 {
		t.Fatalf("one pause, on the first track, one Event: %d Events, %+v", n, p)
	}
}

// TestAJumpFromASharedPhaseDoesNotCrossTheSplit: a jump from a shared phase to a phase
// walked per track is refused, saying why.
func TestAJumpFromASharedPhaseDoesNotCrossTheSplit(t *testing.T) {
	for _, to := range []string{"prod", "final"} {
		t.Run(to, func(t *testing.T) {
			w := trackWorld(t, "stop")
			w.step(t, 0)
			w.edit(map[string]string{"jump": to, "by": "alice"})
			w.step(t, 1)
			if r := w.st.Rollout; r.Phase != 0 || r.Phases[0].Status == PhaseSucceeded || !strings.Contains(w.st.Rejected["jump"], "jumps do not cross the split") {
				t.Fatalf("phase %d %s, rejected %v", r.Phase, r.Phases[0].Status, w.st.Rejected)
			}
		})
	}
}

// TestAbortStopsOnlyTheWalkingTracksPhases: abort marks each still-walking track's phase
// Failed, not a phase a track has already passed.
func TestAbortStopsOnlyTheWalkingTracksPhases(t *testing.T) {
	w := trackWorld(t, "stop")
	w.pastTheSplit(t)
	w.step(t, 80) // eu at final, us at prod
	w.edit(map[string]string{"abort": "bad", "by": "alice"})
	w.step(t, 81)
	var got []string
	for _, ph := range w.st.Rollout.Phases {
		got = append(got, fmt.Sprintf("%s@%s %s", ph.Name, ph.Track, ph.Status))
	}
	want := fmt.Sprintf("[dev@ %s prod@eu %s final@eu %s prod@us %s final@us %s]", PhaseSucceeded, PhaseSucceeded, PhaseFailed, PhaseFailed, PhasePending)
	if w.st.Rollout.Status != StatusStopped || fmt.Sprint(got) != want {
		t.Fatalf("rollout %s, phases %v, want %s", w.st.Rollout.Status, got, want)
	}
}

// TestEachTrackIsPreviewedAndWarmed: once the rollout split, the preview (and the warm the
// agent makes of it) admits each track's next batch — here each track's second prod
// member, as soon as its first settled — not nothing, as it did when the phases and their
// track copies were matched by index.
func TestEachTrackIsPreviewedAndWarmed(t *testing.T) {
	w := trackWorld(t, "stop")
	w.pastTheSplit(t)
	next := PreviewNext(w.st, w.plan.Phases)
	if next == w.st {
		t.Fatalf("no preview once split: %+v", w.st.Rollout.Phases)
	}
	var got []string
	for _, ph := range next.Rollout.Phases {
		got = append(got, fmt.Sprintf("%s@%s%v", ph.Name, ph.Track, ph.Admitted))
	}
	if want := "[dev@[dev-1] prod@eu[eu-1] final@eu[eu-2] prod@us[us-1] final@us[us-2]]"; fmt.Sprint(got) != want {
		t.Fatalf("preview %v, want %s", got, want)
	}
	w.obs.Warmed = w.st.Generation - 1 // the agent warmed the state before this one
	d, err := Decide(w.plan, w.st, w.obs, at(30))
	if err != nil || d.Next.Generation == w.obs.Warmed || !slices.Equal(d.Warm, []string{"eu-2", "us-2"}) {
		t.Fatalf("the tracks' next batches are warmed: %v %v", d.Warm, err)
	}
	w.obs.Warmed = d.Next.Generation
	if d, err := Decide(w.plan, w.st, w.obs, at(30)); err != nil || d.Warm != nil || d.WarmState != nil {
		t.Fatalf("a generation warmed is not previewed again: %v %v", d.Warm, err)
	}
}

// TestEveryTracksFirstBatchIsWarmedBeforeTheSplit: while the last shared phase has nothing
// left to admit, the next batch is every track's first (they start together at the split),
// not only the first track's, as the preview's walk from the shared phase found.
func TestEveryTracksFirstBatchIsWarmedBeforeTheSplit(t *testing.T) {
	w := trackWorld(t, "stop")
	w.step(t, 0) // dev-1 admitted, not settled
	var got []string
	for _, ph := range PreviewNext(w.st, w.plan.Phases).Rollout.Phases {
		got = append(got, fmt.Sprintf("%s@%s%v", ph.Name, ph.Track, ph.Admitted))
	}
	if want := "[dev@[dev-1] prod@eu[eu-1] final@eu[] prod@us[us-1] final@us[]]"; fmt.Sprint(got) != want {
		t.Fatalf("preview %v, want %s", got, want)
	}
	d, err := Decide(w.plan, w.st, w.obs, at(1))
	if err != nil || !slices.Equal(d.Warm, []string{"eu-1", "us-1"}) {
		t.Fatalf("both tracks' first members are warmed: %v %v", d.Warm, err)
	}
}
