package render_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestThePlanCarriesWindows: the rollout's and a phase's windows read back compiled; a
// window that does not compile makes the plan unreadable (fail closed), naming it.
func TestThePlanCarriesWindows(t *testing.T) {
	cm := goldenPlan(t, "seed-000-basic-progressive")
	var doc map[string]any
	if err := json.Unmarshal([]byte(cm.Data[contract.PlanPhasesKey]), &doc); err != nil {
		t.Fatal(err)
	}
	doc["windows"] = []map[string]any{{"name": "nightly", "kind": "deny", "schedule": "0 22 * * *", "duration": "8h", "timeZone": "Europe/Berlin"}}
	doc["phases"].([]any)[0].(map[string]any)["windows"] = []map[string]any{{"name": "xmas", "kind": "deny", "blackoutDates": []string{"2026-12-24"}}}
	set := func() {
		pb, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		cm.Data[contract.PlanPhasesKey] = string(pb)
	}
	set()
	p, err := plan.Decode(cm, targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Windows) != 1 || !p.Windows[0].ActiveAt(time.Date(2026, 11, 25, 23, 0, 0, 0, time.UTC)) {
		t.Fatalf("rollout windows %+v", p.Windows)
	}
	if w := p.Phases[0].Windows; len(w) != 1 || !w[0].ActiveAt(time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("phase windows %+v", w)
	}
	doc["windows"] = []map[string]any{{"name": "nightly", "kind": "deny", "schedule": "0 22 * *", "duration": "8h"}}
	set()
	if _, err := plan.Decode(cm, targets.NewCache(8)); err == nil || !strings.Contains(err.Error(), "windows[0].schedule") {
		t.Fatalf("a bad window must be refused, got %v", err)
	}
}
