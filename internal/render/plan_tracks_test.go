package render

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestAPlanCarriesTracks: the agent reads a phase's tracks as parsed, compiled; a plan
// without them says nothing, as plans did before; a bad expression in a plan is refused.
func TestAPlanCarriesTracks(t *testing.T) {
	_, cm := planOf(t, func(y string) string {
		return strings.Replace(y, "      - name: canary\n", "      - name: canary\n        tracks: labels.region\n", 1)
	})
	p, err := plan.Decode(manifest(cm), targets.NewCache(16))
	if err != nil {
		t.Fatal(err)
	}
	tr := p.Phases[0].Tracks
	if got, err := tr.Of(targets.Subject{Labels: map[string]string{"region": "eu"}}); tr.Src != "labels.region" || err != nil || got != "eu" {
		t.Fatalf("%+v: %q %v", tr, got, err)
	}
	_, plain := planOf(t, func(y string) string { return y })
	if strings.Contains(plain.Data[contract.PlanPhasesKey], `"tracks"`) {
		t.Fatalf("a plan without tracks says nothing: %s", plain.Data[contract.PlanPhasesKey])
	}
	cm.Data[contract.PlanPhasesKey] = strings.Replace(cm.Data[contract.PlanPhasesKey], `"tracks":"labels.region"`, `"tracks":"labels.region +"`, 1)
	if _, err := plan.Decode(manifest(cm), targets.NewCache(16)); err == nil || !strings.Contains(err.Error(), "tracks:") {
		t.Fatalf("a bad tracks in a plan: %v", err)
	}
}
