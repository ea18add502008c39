package state

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// tracked is a rollout split after its first phase into tracks eu and us, two phases each.
func tracked() *Rollout {
	return &Rollout{Revision: "r2", Status: RolloutProgressing, Phase: 1, Phases: []PhaseState{
		{Name: "canary"},
		{Name: "prod", Track: "eu"}, {Name: "final", Track: "eu"},
		{Name: "prod", Track: "us"}, {Name: "final", Track: "us"},
	}, Tracks: []Track{{Name: "eu", Phase: 2}, {Name: "us", Phase: 3}}}
}

func TestTracksSpanSplitAndCurrent(t *testing.T) {
	r := tracked()
	if f, to := r.Span("us"); f != 3 || to != 5 {
		t.Fatalf("span us: %d %d", f, to)
	}
	if f, to := r.Span("nope"); f != to {
		t.Fatalf("an unknown track spans nothing: %d %d", f, to)
	}
	if r.Split() != 1 || !slices.Equal(r.Current(), []int{2, 3}) {
		t.Fatalf("split %d current %v", r.Split(), r.Current())
	}
	r.Tracks[0].Phase = 3 // eu completed: one past its last
	if !slices.Equal(r.Current(), []int{3}) {
		t.Fatalf("a completed track is at no phase: %v", r.Current())
	}
	plain := &Rollout{Phase: 1, Phases: []PhaseState{{Name: "a"}, {Name: "b"}}}
	if plain.Split() != 2 || !slices.Equal(plain.Current(), []int{1}) {
		t.Fatalf("without tracks: split %d current %v", plain.Split(), plain.Current())
	}
	r.Phase = 0
	if !slices.Equal(r.Current(), []int{0}) {
		t.Fatalf("before the split the shared phase is current: %v", r.Current())
	}
}

func TestValidateChecksTracks(t *testing.T) {
	cases := map[string]struct {
		edit func(*Rollout)
		want string
	}{
		"valid":             {func(*Rollout) {}, ""},
		"a track without":   {func(r *Rollout) { r.Tracks = append(r.Tracks, Track{Name: "ap", Phase: 1}) }, `track "ap" has no phases`},
		"a place elsewhere": {func(r *Rollout) { r.Tracks[0].Phase = 4 }, `track "eu" phase 4 out of range`},
		"one past its last": {func(r *Rollout) { r.Tracks[0].Phase = 3 }, ""},
		"phases apart":      {func(r *Rollout) { r.Phases[0].Track = "us" }, `track "us" has phases apart`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s := &State{Schema: Schema, Generation: 1, Revisions: map[string]json.RawMessage{"r2": []byte(`{}`)}, Rollout: tracked()}
			c.edit(s.Rollout)
			err := s.Validate()
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestTracksRoundTripAndOldStatesReadUnchanged: tracks are an optional field of schema 1.
func TestTracksRoundTripAndOldStatesReadUnchanged(t *testing.T) {
	s := &State{Schema: Schema, Generation: 1, Revisions: map[string]json.RawMessage{"r2": []byte(`{}`)}, Rollout: tracked()}
	b, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Fatalf("%v: %+v", err, got)
	}
	old := &State{Schema: Schema, Generation: 1, Revisions: map[string]json.RawMessage{"r2": []byte(`{}`)},
		Rollout: &Rollout{Revision: "r2", Phases: []PhaseState{{Name: "a"}}}}
	raw, _ := json.Marshal(old)
	if strings.Contains(string(raw), "track") {
		t.Fatalf("a state without tracks says nothing of them: %s", raw)
	}
}

// TestTenThousandClustersInTracksFit: splitting the phases per track adds a name per
// phase copy, not per member.
func TestTenThousandClustersInTracksFit(t *testing.T) {
	s := bigState(10000)
	var phases []PhaseState
	var tracks []Track
	for _, region := range []string{"eu-west-1", "us-east-1", "ap-south-1"} {
		tracks = append(tracks, Track{Name: region, Phase: len(phases) + 1, Status: RolloutProgressing})
		for _, ph := range s.Rollout.Phases[1:] {
			ph.Track = region
			ph.Members = slices.DeleteFunc(slices.Clone(ph.Members), func(c string) bool { return !strings.Contains(c, region) })
			ph.Admitted = slices.DeleteFunc(slices.Clone(ph.Admitted), func(c string) bool { return !strings.Contains(c, region) })
			phases = append(phases, ph)
		}
	}
	s.Rollout.Phases, s.Rollout.Tracks, s.Rollout.Phase = append(s.Rollout.Phases[:1], phases...), tracks, 1
	b, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 640<<10 {
		t.Fatalf("%d bytes", len(b))
	}
	t.Log(fmt.Sprintf("10,000 clusters in 3 tracks: %d bytes compressed", len(b)))
	if _, err := Decode(b); err != nil {
		t.Fatal(err)
	}
}
