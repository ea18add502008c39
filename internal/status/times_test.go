package status

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

var t0 = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

func sec(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func ptr(t time.Time) *time.Time { return &t }

// timed is a rollout with every time the state keeps: dev ran and ended, prod runs, a
// check finished and a pre-hook still runs.
func timed() *state.State {
	return &state.State{Generation: 7, Deployed: "4b083a5117d658f7",
		Rollout: &state.Rollout{Revision: "f508e54d2325e19a", Status: state.RolloutProgressing, Phase: 1, StartedAt: sec(0), Phases: []state.PhaseState{
			{Name: "dev", Status: state.PhaseSucceeded, Members: []string{"gb-dev-1"}, Admitted: []string{"gb-dev-1"}, StartedAt: ptr(sec(0)), EndedAt: sec(95),
				Clusters: map[string]state.ClusterState{"gb-dev-1": {Status: state.ClusterDone, Reason: "synced and Healthy", AdmittedAt: sec(2), SettledAt: sec(14)}},
				Hooks: map[string]state.HookRun{"check/health/gb-dev-1": {Kind: "check", Name: "health", Cluster: "gb-dev-1", Status: state.HookSucceeded, Attempts: 1,
					StartedAt: sec(14), FinishedAt: ptr(sec(15)), Duration: 1250 * time.Millisecond, Message: "status 200: ok"}}},
			{Name: "prod", Status: state.PhaseAdmitting, Members: []string{"gb-prod-1"}, Admitted: []string{"gb-prod-1"}, StartedAt: ptr(sec(95)),
				Clusters: map[string]state.ClusterState{"gb-prod-1": {Status: state.ClusterWaiting, Reason: "sync running", AdmittedAt: sec(100)}},
				Hooks:    map[string]state.HookRun{"pre/notify": {Kind: "pre", Name: "notify", Status: state.HookRunning, StartedAt: sec(95)}}},
			{Name: "last", Status: state.PhasePending},
		}, History: []state.Entry{
			{At: sec(0), Event: "RolloutStarted", Message: "rollout of revision f508e54d2325e19a started: 2 children take part"},
			{At: sec(95), Event: "PhaseSucceeded", Message: "phase dev succeeded"},
		}}}
}

// TestTheTableShowsWhereTheTimeWent is the table's golden: how long each phase ran or has
// been running, how long each child took to settle or has waited, how long each hook took
// or has been running, and the history.
func TestTheTableShowsWhereTheTimeWent(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, Of("guestbook", timed()), sec(160)); err != nil {
		t.Fatal(err)
	}
	want := `ROLLOUT guestbook  generation 7  deployed 4b083a5117d6
STATUS  Progressing of f508e54d2325 at prod
PHASE        STATUS     ADMITTED  TIME          GATE
dev          Succeeded  1/1       ran 1m35s
  gb-dev-1   Done                 took 12s      synced and Healthy
  hook       Succeeded            took 1.3s     check/health/gb-dev-1  status 200: ok
prod         Admitting  1/1       running 1m5s
  gb-prod-1  Waiting              for 1m0s      sync running
  hook       Running              for 1m5s      pre/notify
last         Pending    0/0
HISTORY
  2026-11-22T03:00:00Z  RolloutStarted  rollout of revision f508e54d2325e19a started: 2 children ta…
  2026-11-22T03:01:35Z  PhaseSucceeded  phase dev succeeded
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestTheDocumentCarriesTheTimes pins the added field names in JSON and YAML; the
// documented ones stay (TestTheJSONIsStable).
func TestTheDocumentCarriesTheTimes(t *testing.T) {
	d := Of("guestbook", timed())
	j, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"startedAt":"2026-11-22T03:00:00Z"`, `"history":[{"at":"2026-11-22T03:00:00Z","event":"RolloutStarted"`,
		`"name":"dev","status":"Succeeded","members":1,"admitted":1`, `"startedAt":"2026-11-22T03:00:00Z","endedAt":"2026-11-22T03:01:35Z"}`,
		`"reason":"synced and Healthy","admittedAt":"2026-11-22T03:00:02Z","settledAt":"2026-11-22T03:00:14Z"}`,
		`"startedAt":"2026-11-22T03:00:14Z","finishedAt":"2026-11-22T03:00:15Z","duration":"1.25s"}`,
		`"key":"pre/notify","status":"Running","startedAt":"2026-11-22T03:01:35Z"}`, `"name":"last","status":"Pending","members":0,"admitted":0}`} {
		if !strings.Contains(string(j), field) {
			t.Errorf("no %s in %s", field, j)
		}
	}
	if strings.Contains(string(j), `"endedAt":"0001`) || strings.Contains(string(j), `"settledAt":"0001`) {
		t.Errorf("a time not reached yet is omitted, not zero: %s", j)
	}
	y, err := yaml.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"endedAt: \"2026-11-22T03:01:35Z\"", "duration: 1.25s", "settledAt: \"2026-11-22T03:00:14Z\"", "- at: \"2026-11-22T03:00:00Z\""} {
		if !strings.Contains(string(y), field) {
			t.Errorf("no %s in\n%s", field, y)
		}
	}
}

func TestDurations(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"}, {1234567 * time.Nanosecond, "1ms"}, {1250 * time.Millisecond, "1.3s"}, {12345 * time.Millisecond, "12.3s"},
		{95*time.Second + 400*time.Millisecond, "1m35s"}, {3*time.Hour + 5*time.Minute + 40*time.Second, "3h06m"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.d), func(t *testing.T) {
			if got := dur(tc.d); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestHistoryInTheTableIsTheLatest(t *testing.T) {
	var h []Entry
	for i := range 25 {
		h = append(h, Entry{At: sec(i), Event: "PhaseStarted", Message: fmt.Sprintf("entry %d", i)})
	}
	var lines []string
	historyLines(func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }, h)
	if len(lines) != TableHistory+1 || lines[0] != "HISTORY (latest 10 of 25; -o yaml has all)" || !strings.HasSuffix(lines[len(lines)-1], "entry 24") || !strings.HasSuffix(lines[1], "entry 15") {
		t.Fatalf("%q", lines)
	}
}
