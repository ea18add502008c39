package status

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

func sample() *state.State {
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	soak := now.Add(90 * time.Second)
	return &state.State{Generation: 12, Deployed: "4b083a5117d658f7", Rejected: map[string]string{"jump": `jump="qa": no phase "qa" (fix: one of dev, prod)`},
		Paused: &state.Pause{Reason: "error budget", By: "alice", Since: now},
		Rollout: &state.Rollout{Revision: "f508e54d2325e19a", Status: state.RolloutProgressing, Phase: 1, Phases: []state.PhaseState{
			{Name: "dev", Status: state.PhaseSucceeded, Members: []string{"guestbook-dev-1"}, Admitted: []string{"guestbook-dev-1"},
				Clusters: map[string]state.ClusterState{"guestbook-dev-1": {Status: state.ClusterDone, Reason: "synced and Healthy"}}},
			{Name: "prod", Status: state.PhaseSoaking, SoakUntil: &soak, Members: []string{"guestbook-prod-1", "guestbook-prod-2"}, Admitted: []string{"guestbook-prod-1"},
				Clusters: map[string]state.ClusterState{"guestbook-prod-1": {Status: state.ClusterWaiting, Reason: strings.Repeat("a very long reason ", 20)}},
				Hooks:    map[string]state.HookRun{"check/health/guestbook-prod-1": {Status: state.HookSucceeded, Attempts: 1, Message: "status 200: ok"}}},
		}}}
}

func TestTheTableFitsOneHundredColumns(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, Of("guestbook", sample()), time.Date(2026, 11, 22, 3, 0, 30, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if n := utf8.RuneCountInString(l); n > Width {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	for _, want := range []string{"STATUS  Progressing of f508e54d2325 at prod", "soak ends in 1m0s", "PAUSED  by alice", "REFUSED jump=", "check/health/guestbook-prod-1  status 200: ok"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// TestTheJSONIsStable pins the documented field names.
func TestTheJSONIsStable(t *testing.T) {
	b, err := json.Marshal(Of("guestbook", sample()))
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"rollout":"guestbook"`, `"generation":12`, `"deployed":`, `"revision":`, `"status":"Progressing"`, `"phase":"prod"`,
		`"paused":{"reason":"error budget","by":"alice"`, `"phases":[{"name":"dev","status":"Succeeded","members":1,"admitted":1`, `"soakUntil":`,
		`"clusters":[{"name":"guestbook-prod-1","status":"Waiting"`, `"hooks":[{"key":"check/health/guestbook-prod-1","status":"Succeeded","attempts":1`, `"rejected":[`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("no %s in %s", field, b)
		}
	}
}

// TestTextIsTheStatusKey pins the summary the agent keeps in the status key: the outline
// holds all it reads, so the full document and the outline give the same text.
func TestTextIsTheStatusKey(t *testing.T) {
	st := sample()
	st.Rollout.Reason, st.Rollout.Skipped = "waiting for prod", []string{"guestbook-prod-2"}
	want := `rollout of f508e54d2325: Progressing at phase prod (2/2): waiting for prod
  dev: Succeeded, 1/1 admitted
  prod: Soaking, 1/2 admitted, soaking until 2026-11-22T03:01:30Z
skipped: guestbook-prod-2
paused by alice since 2026-11-22T03:00:00Z: error budget
refused jump="qa": no phase "qa" (fix: one of dev, prod)
`
	if got := Text(Of("guestbook", st)); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if Text(Outline("guestbook", st)) != want {
		t.Fatal("the outline says less than the document")
	}
	idle := &state.State{Generation: 3, Deployed: "4b083a5117d658f7", Paused: &state.Pause{Reason: "freeze", Since: st.Paused.Since}}
	if got := Text(Of("guestbook", idle)); got != "no rollout; deployed 4b083a5117d6\npaused by someone since 2026-11-22T03:00:00Z: freeze\n" {
		t.Fatalf("%q", got)
	}
}

// TestPostDeleteRunsAreShown: the post-delete hooks' ledger, outside every phase, is in the
// table and the JSON, so a leaving cluster's hook can be followed like any other.
func TestPostDeleteRunsAreShown(t *testing.T) {
	st := sample()
	st.AfterDelete = map[string]state.HookRun{"postdelete/deregister/guestbook-prod-2": {Kind: "postdelete", Name: "deregister", Status: state.HookFailed, Attempts: 1, Message: "status 503"}}
	d := Of("guestbook", st)
	var b bytes.Buffer
	if err := Table(&b, d, time.Date(2026, 11, 22, 3, 0, 30, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "post-delete") || !strings.Contains(b.String(), "postdelete/deregister/guestbook-prod-2  status 503") {
		t.Fatalf("table:\n%s", b.String())
	}
	if js, _ := json.Marshal(d); !strings.Contains(string(js), `"afterDelete":[{"key":"postdelete/deregister/guestbook-prod-2","status":"Failed"`) {
		t.Fatalf("json: %s", js)
	}
}

// TestThePhasesDeadlineIsShown: an admitting phase's progressDeadline (stated or the
// default) is in the text, the outline and the JSON, so status says when a wait ends.
func TestThePhasesDeadlineIsShown(t *testing.T) {
	st := sample()
	deadline := time.Date(2026, 11, 22, 3, 10, 0, 0, time.UTC)
	st.Rollout.Phases[1].Status, st.Rollout.Phases[1].SoakUntil, st.Rollout.Phases[1].DeadlineAt = state.PhaseAdmitting, nil, &deadline
	want := "  prod: Admitting, 1/2 admitted, members settle by 2026-11-22T03:10:00Z\n"
	if got := Text(Of("guestbook", st)); !strings.Contains(got, want) {
		t.Fatalf("got\n%s\nwant a line %q", got, want)
	}
	if got := Text(Outline("guestbook", st)); !strings.Contains(got, want) {
		t.Fatalf("the outline says less: %s", got)
	}
	if b, _ := json.Marshal(Of("guestbook", st)); !strings.Contains(string(b), `"deadlineAt":"2026-11-22T03:10:00Z"`) {
		t.Fatalf("json: %s", b)
	}
}

// TestLeftOutChildrenAreShown: the unselected children the render left out are in the
// table and the JSON, each with its reason.
func TestLeftOutChildrenAreShown(t *testing.T) {
	st := sample()
	st.Rollout.LeftOut = map[string]string{"in-cluster-app": "labels.env renders \"{{metadata.labels.env}}\""}
	d := Of("guestbook", st)
	var b bytes.Buffer
	if err := Table(&b, d, time.Date(2026, 11, 22, 3, 0, 30, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "LEFT OUT in-cluster-app: labels.env renders") {
		t.Fatalf("table:\n%s", b.String())
	}
	if js, _ := json.Marshal(d); !strings.Contains(string(js), `"leftOut":{"in-cluster-app":`) {
		t.Fatalf("json: %s", js)
	}
}
