package status

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestShardsAreShownOneLineEach: every shard of N gets a line (a missing plan too), the
// hold's reason goes on the shard it names, and the JSON document carries them.
func TestShardsAreShownOneLineEach(t *testing.T) {
	st := &state.State{Generation: 9, Rollout: &state.Rollout{Revision: "r2", Status: state.RolloutProgressing,
		Reason: `held: shard 2/3: parent "fleet-2" missing (fix: recreate it)`, Phases: []state.PhaseState{{Name: "dev"}}}}
	d := Of("fleet", st)
	AddShards(&d, []Shard{
		{Shard: "1/3", Parent: "fleet-1", Children: 4, Generation: 9},
		{Shard: "0/3", Parent: "fleet-0", Children: 3, Generation: 7},
	})
	if len(d.Shards) != 3 || d.Shards[0].Parent != "fleet-0" || d.Shards[2].Shard != "2/3" || d.Shards[2].Parent != "" {
		t.Fatalf("shards %+v", d.Shards)
	}
	if d.Shards[2].Held != `parent "fleet-2" missing (fix: recreate it)` || d.Shards[0].Held != "" {
		t.Fatalf("held on the wrong shard: %+v", d.Shards)
	}
	var b strings.Builder
	if err := Table(&b, d, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SHARD  PARENT", "0/3    fleet-0    3         7", "2/3    (no plan)", `parent "fleet-2" missing`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteTable(&b, d, time.Now(), TableOptions{NoHeaders: true}); err != nil || strings.Contains(b.String(), "SHARD") || !strings.Contains(b.String(), "0/3  fleet-0") {
		t.Errorf("--no-headers keeps the shards' rows only: %v\n%s", err, b.String())
	}
	js, _ := json.Marshal(d)
	if !strings.Contains(string(js), `"shards":[{"shard":"0/3","parent":"fleet-0","children":3,"generation":7}`) {
		t.Errorf("json: %s", js)
	}
}

func TestUnshardedHasNoShards(t *testing.T) {
	d := Of("fleet", &state.State{Generation: 1})
	AddShards(&d, nil)
	var b strings.Builder
	if err := Table(&b, d, time.Now()); err != nil || d.Shards != nil || strings.Contains(b.String(), "SHARD") {
		t.Fatalf("unsharded: %+v\n%s", d.Shards, b.String())
	}
}
