package spec

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// wavesDoc is seed 000's basic example with its production phase given extra fields.
func wavesDoc(t *testing.T, fields string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/seeds/000-basic-progressive.yaml")
	if err != nil {
		t.Fatal(err)
	}
	anchor := "        onFailure:\n          action: stop\n"
	if !strings.Contains(string(b), anchor) {
		t.Fatal("the seed's production phase changed")
	}
	return []byte(strings.Replace(string(b), anchor, anchor+fields, 1))
}

// TestAPhaseDeploymentPhaseTakesWaves: seed 000's own phases take batchSize (how many of
// the phase's members update at once, as a RollingSync step's maxUpdate), batchWait and
// batchChecks with the steps' spellings; the plan carries them.
func TestAPhaseDeploymentPhaseTakesWaves(t *testing.T) {
	s, err := Parse("spec.yaml", wavesDoc(t, "        batchSize: 1\n        batchWait: 2m\n        batchChecks: true\n"), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	p := s.Phases[2]
	if p.Throttle != (Size{Kind: SizeCount, Value: 1}) || p.BatchWait != 2*time.Minute || !p.BatchChecks || p.Size.Kind != SizeAll {
		t.Fatalf("production: throttle %+v, batchWait %s, batchChecks %v, size %+v", p.Throttle, p.BatchWait, p.BatchChecks, p.Size)
	}
	if s.Phases[0].Throttle.Kind != SizeAll || s.Phases[0].BatchWait != 0 {
		t.Fatalf("development has no waves: %+v", s.Phases[0])
	}
	js, err := p.MarshalJSON()
	var back Phase
	if err != nil || back.UnmarshalJSON(js) != nil || back.Throttle != p.Throttle || back.BatchWait != p.BatchWait || !back.BatchChecks {
		t.Fatalf("the plan keeps them: %s %v", js, err)
	}
	pct, err := Parse("spec.yaml", wavesDoc(t, "        batchSize: \"50%\"\n"), targets.NewCache(8))
	if err != nil || pct.Phases[2].Throttle != (Size{Kind: SizePercent, Value: 50}) {
		t.Fatalf("a percentage: %+v %v", pct, err)
	}
}

// TestWavesWithoutABatchSizeAreRefused: batchWait or batchChecks on a phase that admits its
// members in one batch would never act; the error names the field and the fix.
func TestWavesWithoutABatchSizeAreRefused(t *testing.T) {
	for fields, want := range map[string]string{
		"        batchWait: 2m\n":                       "phases[2].batchSize: batchWait and batchChecks act between batches",
		"        batchChecks: true\n":                   "phases[2].batchSize: batchWait and batchChecks act between batches",
		"        batchSize: many\n":                     `phases[2].batchSize: invalid maxUpdate "many"`,
		"        batchSize: 1\n        batchWait: 0s\n": "phases[2].batchWait: must be positive",
	} {
		_, err := Parse("spec.yaml", wavesDoc(t, fields), targets.NewCache(8))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%q: got %v, want %q", fields, err, want)
		}
	}
}

// TestAComposedPhaseKeepsItsWavesUnlessItsStepHasThem: composed with spec.strategy steps, a
// step's maxUpdate and batchWait take the place of the phase's batchSize and batchWait;
// a step without them leaves the phase's own.
func TestAComposedPhaseKeepsItsWavesUnlessItsStepHasThem(t *testing.T) {
	own := Phase{Name: "p", Throttle: Size{Kind: SizeCount, Value: 2}, BatchWait: time.Minute, BatchChecks: true}
	if p := pair(Phase{Name: "s", Size: Size{Kind: SizeAll}}, own, 0, true); p.Throttle != own.Throttle || p.BatchWait != time.Minute || !p.BatchChecks {
		t.Fatalf("a step without waves keeps the phase's: %+v", p)
	}
	step := Phase{Name: "s", Size: Size{Kind: SizeCount, Value: 1}, BatchWait: 5 * time.Minute}
	if p := pair(step, own, 0, true); p.Throttle != step.Size || p.BatchWait != 5*time.Minute {
		t.Fatalf("the step's waves win: %+v", p)
	}
}
