package status

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// tracked is a rollout split after dev into tracks eu (rolled back) and us (at prod).
func tracked() *state.State {
	ended := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	return &state.State{Generation: 3, Deployed: "4b083a5117d658f7",
		Rollout: &state.Rollout{Revision: "f508e54d2325e19a", Status: state.RolloutProgressing, Phase: 1, Phases: []state.PhaseState{
			{Name: "dev", Status: state.PhaseSucceeded, Members: []string{"dev-1"}, Admitted: []string{"dev-1"}},
			{Name: "prod", Track: "eu", Status: state.PhaseRolledBack, Members: []string{"eu-1"}},
			{Name: "prod", Track: "us", Status: state.PhaseAdmitting, Members: []string{"us-1"}, Admitted: []string{"us-1"}},
		}, Tracks: []state.Track{
			{Name: "eu", Phase: 1, Status: state.RolloutRolledBack, Reason: "phase prod Failed: eu-1: Degraded", EndedAt: ended},
			{Name: "us", Phase: 2, Status: state.RolloutProgressing},
		}}}
}

func TestStatusShowsTracks(t *testing.T) {
	d := Of("guestbook", tracked())
	cases := map[string]struct {
		got  func() string
		want []string
	}{
		"text": {func() string { return Text(Outline("guestbook", tracked())) },
			[]string{"  prod@eu: RolledBack, 0/1 admitted\n", "  prod@us: Admitting, 1/1 admitted\n",
				"track eu: RolledBack: phase prod Failed: eu-1: Degraded\n", "track us at prod: Progressing\n"}},
		"table": {func() string {
			var b bytes.Buffer
			if err := Table(&b, d, time.Date(2026, 11, 22, 3, 0, 30, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}, []string{"TRACK   eu: RolledBack: phase prod Failed", "TRACK   us at prod: Progressing", "prod@us  Admitting"}},
		"json": {func() string {
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}, []string{`"tracks":[{"name":"eu","status":"RolledBack","reason":"phase prod Failed: eu-1: Degraded","endedAt":"2026-11-22T03:00:00Z"},{"name":"us","phase":"prod","status":"Progressing"}]`,
			`{"name":"prod","status":"Admitting","members":1,"admitted":1,"track":"us"}`}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := c.got()
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("no %q in\n%s", w, got)
				}
			}
		})
	}
	if b, _ := json.Marshal(Of("guestbook", sample())); strings.Contains(string(b), "track") {
		t.Fatalf("a rollout without tracks says nothing of them: %s", b)
	}
}
