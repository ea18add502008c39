package status

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// withGate is the sample with a two-person gate from sre on prod: alice counted, alice
// again and carol (not in sre) not.
func withGate() *state.State {
	st := sample()
	t := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	st.Rollout.Phases[1].Approval = &state.ApprovalGate{Required: 2, Groups: []string{"sre"}, AskedAt: &t, Approvals: []state.Approval{
		{By: "alice", Groups: []string{"sre"}, At: t.Add(10 * time.Second), Reason: "CHG-7", Counted: true},
		{By: "alice", Groups: []string{"sre"}, At: t.Add(20 * time.Second), Note: "already approved: counts once"},
		{By: "carol", Groups: []string{"dev"}, At: t.Add(25 * time.Second), Note: "not in sre (groups: dev)"},
	}}
	st.Rollout.Phases[1].Status, st.Rollout.Phases[1].SoakUntil = state.PhaseAdmitting, nil
	return st
}

func TestStatusShowsApprovals(t *testing.T) {
	d := Of("guestbook", withGate())
	var b bytes.Buffer
	if err := Table(&b, d, time.Date(2026, 11, 22, 3, 1, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"awaiting 1/2 approvals, 1 more from sre", "approved by alice", "counted", "50s ago", `groups sre; "CHG-7"`,
		"ignored", "already approved: counts once", "approved by carol", "not in sre (groups: dev)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if len([]rune(l)) > Width {
			t.Errorf("over %d columns: %q", Width, l)
		}
	}
	text := Text(d)
	if want := "  prod: Admitting, 1/2 admitted, awaiting 1/2 approvals, 1 more from sre (approved by alice at 2026-11-22T03:00:10Z)\n"; !strings.Contains(text, want) {
		t.Errorf("status key %q lacks %q", text, want)
	}
	js, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{`"approval":{"required":2,"groups":["sre"],"askedAt":"2026-11-22T03:00:00Z","still":1,"approvals":[{"by":"alice","groups":["sre"],"at":"2026-11-22T03:00:10Z","reason":"CHG-7","counted":true}`,
		`{"by":"carol","groups":["dev"],"at":"2026-11-22T03:00:25Z","counted":false,"note":"not in sre (groups: dev)"}`} {
		if !strings.Contains(string(js), f) {
			t.Errorf("no %s in %s", f, js)
		}
	}
}

func TestStatusShowsARejectionAndAnOpenGate(t *testing.T) {
	st := withGate()
	t0 := time.Date(2026, 11, 22, 3, 0, 30, 0, time.UTC)
	g := st.Rollout.Phases[1].Approval
	g.Rejection = &state.Approval{By: "bob", At: t0, Reason: "error budget"}
	if text := Text(Of("guestbook", st)); !strings.Contains(text, "prod: Admitting, 1/2 admitted, rejected by bob at 2026-11-22T03:00:30Z") {
		t.Errorf("rejected: %q", text)
	}
	g.Rejection, g.OpenedAt = nil, &t0
	st.Rollout.Phases[1].ApprovedBy = "alice, bob"
	d := Of("guestbook", st)
	if text := Text(d); strings.Contains(text, "awaiting") || d.Phases[1].Approval.Still != 0 {
		t.Errorf("an open gate waits for nothing: %q %+v", text, d.Phases[1].Approval)
	}
}

// An after-checks gate asks once the soak ended: the phase is still Soaking in the state,
// and the table says what it waits for — the approvals, not a soak that is over.
func TestAGateAskedAfterTheSoakIsWhatTheTableShows(t *testing.T) {
	st := withGate()
	soak := time.Date(2026, 11, 22, 2, 59, 0, 0, time.UTC)
	st.Rollout.Phases[1].Status, st.Rollout.Phases[1].SoakUntil = state.PhaseSoaking, &soak
	st.Rollout.Phases[1].Approval.AfterChecks = true
	var b bytes.Buffer
	if err := Table(&b, Of("guestbook", st), time.Date(2026, 11, 22, 3, 1, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "awaiting 1/2 approvals, 1 more from sre") || strings.Contains(out, "soak ends in") {
		t.Errorf("the gate column shows the soak, not the approvals:\n%s", out)
	}
}
