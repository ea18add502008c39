package state

import (
	"strings"
	"testing"
)

func TestTheRolloutWideBudgetRoundTripsAndIsNeverNegative(t *testing.T) {
	const doc = `{"schema":1,"generation":1,"revisions":{"r":{}},"rollout":{"revision":"r","status":"Progressing","phase":0,"phases":[],"startedAt":"2026-11-22T10:00:00Z","maxFailures":%s}}`
	s, err := Decode(gz(strings.Replace(doc, "%s", "2", 1)))
	if err != nil || s.Rollout.MaxFailures == nil || *s.Rollout.MaxFailures != 2 {
		t.Fatalf("%+v %v", s, err)
	}
	if _, err := Decode(gz(strings.Replace(doc, "%s", "-1", 1))); err == nil || !strings.Contains(err.Error(), "maxFailures -1 is negative") {
		t.Fatalf("a negative budget: %v", err)
	}
	if (*Rollout)(nil).Failures() != nil {
		t.Fatal("no rollout, no failures")
	}
}
