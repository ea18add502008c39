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
