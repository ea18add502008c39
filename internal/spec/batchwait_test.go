package spec

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestAStepsBatchWaitIsReadAndComposed: seed 003's steps take the extension batchWait (the
// wave delay of seed 002); a step's waves carry over to the phases composed within it; a
// non-positive one is refused naming the field and the fix.
func TestAStepsBatchWaitIsReadAndComposed(t *testing.T) {
	b, err := os.ReadFile("testdata/seeds/003-guestbook-rolling-sync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	with := func(v string) []byte {
		return []byte(strings.Replace(string(b), "          maxUpdate: 10%", "          maxUpdate: 10%\n          batchWait: "+v, 1))
	}
	s, err := Parse("spec.yaml", with("5m"), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Phases[2].BatchWait; got != 5*time.Minute || s.Phases[0].BatchWait != 0 {
		t.Fatalf("batchWait %s, %s", got, s.Phases[0].BatchWait)
	}
	if p := pair(s.Phases[2], Phase{Name: "p"}, 2, true); p.BatchWait != 5*time.Minute {
		t.Fatalf("composed: %s", p.BatchWait)
	}
	_, err = Parse("spec.yaml", with("0s"), targets.NewCache(8))
	if err == nil || !strings.Contains(err.Error(), "steps[2].batchWait: must be positive (fix: use a duration such as 5m, or leave it out)") {
		t.Fatalf("got %v", err)
	}
}

// TestBatchChecksNeedPhasesWithChecks: a step's batchChecks carries over to the phases
// composed within it, and the plan keeps it; on a step with no phases composed in (seed
// 003 alone) it is refused, naming the field and the fix.
func TestBatchChecksNeedPhasesWithChecks(t *testing.T) {
	b, err := os.ReadFile("testdata/seeds/003-guestbook-rolling-sync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc := []byte(strings.Replace(string(b), "          maxUpdate: 10%", "          maxUpdate: 10%\n          batchChecks: true", 1))
	_, err = Parse("spec.yaml", doc, targets.NewCache(8))
	if err == nil || !strings.Contains(err.Error(), "spec.strategy.rollingSync.steps[2].batchChecks: a step has no checks of its own") ||
		!strings.Contains(err.Error(), "fix: compose the steps with a generator's phases") {
		t.Fatalf("got %v", err)
	}
	p := pair(Phase{Name: "s", BatchChecks: true}, Phase{Name: "p"}, 0, true)
	if !p.BatchChecks {
		t.Fatal("composed: the step's batchChecks is the pair's")
	}
	js, err := p.MarshalJSON()
	var back Phase
	if err != nil || back.UnmarshalJSON(js) != nil || !back.BatchChecks {
		t.Fatalf("the plan keeps it: %s %v", js, err)
	}
}
