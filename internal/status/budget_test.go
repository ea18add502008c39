package status

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestTheFailureBudgetShows: a rollout with a rollout-wide maxFailures shows it and its
// failures so far in the document, the table and the summary; one without shows nothing.
func TestTheFailureBudgetShows(t *testing.T) {
	cases := map[string]struct {
		max    *int
		failed state.ClusterStatus
		want   string
	}{
		"within":    {intPtr(1), state.ClusterFailed, "1 of maxFailures 1 across the rollout"},
		"spent":     {intPtr(0), state.ClusterErrored, "1 of maxFailures 0 across the rollout (spent)"},
		"untouched": {intPtr(3), state.ClusterDone, "0 of maxFailures 3 across the rollout"},
		"none":      {nil, state.ClusterFailed, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			st := sample()
			st.Rollout.MaxFailures = c.max
			st.Rollout.Phases[0].Clusters["guestbook-dev-1"] = state.ClusterState{Status: c.failed}
			d := Of("guestbook", st)
			var table bytes.Buffer
			if err := Table(&table, d, time.Date(2026, 11, 22, 3, 0, 30, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if d.FailureBudget != nil || strings.Contains(string(b), "failureBudget") || strings.Contains(table.String(), "FAILURES") || strings.Contains(Text(d), "failures:") {
					t.Fatalf("no budget, nothing shown: %s", b)
				}
				return
			}
			if !strings.Contains(table.String(), "FAILURES "+c.want) || !strings.Contains(Text(d), "failures: "+c.want) || !strings.Contains(string(b), `"failureBudget":{"failures":`) {
				t.Fatalf("table\n%s\ntext\n%s\njson %s", table.String(), Text(d), b)
			}
		})
	}
}

func intPtr(n int) *int { return &n }
