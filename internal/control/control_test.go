package control

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

var phases = []string{"dev", "staging", "prod"}

func TestValidEditsAreRead(t *testing.T) {
	c := Parse(map[string]string{"pause": " error rate up ", "pause-until": "2026-11-22T04:00:00Z", "approve": "prod", "jump": "prod",
		"force": "true", "skip": "b, a,a ,", "by": "alice", "status": "written by the agent", "generation": "7"}, phases, now)
	if len(c.Problems) != 0 {
		t.Fatalf("%v", c.Problems)
	}
	if c.Pause != "error rate up" || c.PauseUntil == nil || c.Approve != "prod" || c.Jump != "prod" || !c.Force || strings.Join(c.Skip, ",") != "a,b" || c.By != "alice" {
		t.Fatalf("%+v", c)
	}
}

func TestEveryInvalidEditSaysWhatToDo(t *testing.T) {
	cases := map[string]struct {
		data map[string]string
		key  string
		want string
	}{
		"an unknown key":                        {map[string]string{"pasue": "x"}, "pasue", "unknown key (fix: remove it; the keys are pause, pause-until"},
		"a bad phase name":                      {map[string]string{"approve": "production"}, "approve", `no phase "production" (fix: one of dev, staging, prod)`},
		"a pause without a reason":              {map[string]string{"pause": "  "}, "pause", `needs a reason (fix: write why`},
		"a timestamp that is not one":           {map[string]string{"pause": "x", "pause-until": "tomorrow"}, "pause-until", "not an RFC 3339 time (fix: e.g. 2026-11-22T04:00:00Z)"},
		"pause-until alone":                     {map[string]string{"pause-until": "2026-11-22T04:00:00Z"}, "pause-until", "pause-until without pause (fix: also set pause"},
		"force that is not a boolean":           {map[string]string{"jump": "prod", "force": "yes"}, "force", `must be "true" or "false"`},
		"force without jump":                    {map[string]string{"force": "true"}, "force", "force only goes with jump"},
		"abort and rollback at once":            {map[string]string{"abort": "x", "rollback": "y"}, "rollback", "abort and rollback at once (fix: keep one)"},
		"a jump to a phase that does not exist": {map[string]string{"jump": "qa"}, "jump", `no phase "qa"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := Parse(c.data, phases, now)
			for _, p := range got.Problems {
				if p.Key == c.key && strings.Contains(p.Message, c.want) {
					return
				}
			}
			t.Fatalf("problems %v, want %s: %q", got.Problems, c.key, c.want)
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add("pause", "x", "2026-11-22T04:00:00Z", "prod")
	f.Add("jump", "", "not a time", "a,b,,c")
	f.Fuzz(func(t *testing.T, k, v, until, skip string) {
		c := Parse(map[string]string{k: v, "pause-until": until, "skip": skip}, phases, now)
		for _, p := range c.Problems {
			if p.Message == "" {
				t.Fatalf("a problem says nothing: %+v", p)
			}
		}
	})
}

// TestASkipListOfManyNamesIsReadInLinearTime: 80,000 names took 14.9 s when each was
// searched for among those before it (issue 47); read once, sorted, each once.
func TestASkipListOfManyNamesIsReadInLinearTime(t *testing.T) {
	names := make([]string, 80000)
	for i := range names {
		names[i] = fmt.Sprintf("child-%05d", len(names)-i)
	}
	start := time.Now()
	c := Parse(map[string]string{"skip": strings.Join(names, ",") + "," + names[0]}, phases, now)
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("80,000 names took %v", took)
	}
	if len(c.Skip) != len(names) || !slices.IsSorted(c.Skip) || len(c.Problems) != 0 {
		t.Fatalf("%d names, sorted %v, problems %v", len(c.Skip), slices.IsSorted(c.Skip), c.Problems)
	}
}
