package spec

import (
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// withTracks is the base spec with lines added to its rest phase (after maxUpdate).
func withTracks(canary, rest string) []byte {
	y := strings.Replace(string(specWith(`'true'`, "1")), "        percentage: 10\n", "        percentage: 10\n"+canary, 1)
	return []byte(strings.Replace(y, "        maxUpdate: 1\n", "        maxUpdate: 1\n"+rest, 1))
}

func TestParseReadsTracks(t *testing.T) {
	s, err := Parse("spec.yaml", withTracks("", "        tracks: labels.region\n"), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Phases[0].Tracks.IsZero() || s.Phases[1].Tracks.Src != "labels.region" || TrackSplit(s.Phases) != 1 {
		t.Fatalf("%+v", s.Phases)
	}
	cases := map[string]struct {
		labels map[string]string
		want   string
	}{
		"a label":     {map[string]string{"region": "eu"}, "eu"},
		"no label":    {nil, NoTrack},
		"another one": {map[string]string{"region": "us", "x": "y"}, "us"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := s.Phases[1].Tracks.Of(targets.Subject{Name: "a", Labels: c.labels})
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
	if _, err := (Tracks{Src: "labels.region"}).Of(targets.Subject{}); err == nil {
		t.Fatal("an uncompiled tracks must be an error, not one track")
	}
	if TrackSplit(nil) != -1 {
		t.Fatal("no phase: no split")
	}
}

// TestABadTracksNamesTheField: the file, line, field and a fix, as order and spread.
func TestABadTracksNamesTheField(t *testing.T) {
	cases := map[string]struct{ canary, rest, want string }{
		"does not compile": {"", "        tracks: 'labels.region +'\n", "spec.yaml:17: spec.generators[0].deploymentStrategy.phases[1].tracks: unexpected token"},
		"is a boolean":     {"", "        tracks: 'name == \"a\"'\n", "phases[1].tracks: expression gives bool, not a string or a number (fix: give it a string or a number"},
		"is empty":         {"", "        tracks: ''\n", "phases[1].tracks: is empty (fix: write an expression such as labels.region"},
		"splits twice":     {"        tracks: labels.zone\n", "        tracks: labels.region\n", "phases[1].tracks: phase rest splits again after phase canary (fix: keep tracks on the first phase that splits"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("spec.yaml", withTracks(c.canary, c.rest), targets.NewCache(8))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}
