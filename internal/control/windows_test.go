package control

import (
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

func TestParseFleetWindows(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        []string // window names
		problem     string
	}{
		{"none", "", nil, ""},
		{"a nightly deny window", "- {name: nightly, kind: deny, schedule: '0 22 * * *', duration: 8h, timeZone: Europe/Berlin}", []string{"nightly"}, ""},
		{"a blackout", "- name: xmas\n  kind: deny\n  blackoutDates: ['2026-12-24']\n", []string{"xmas"}, ""},
		{"a bad schedule fails closed", "- {name: n, kind: deny, schedule: '0 25 * * *', duration: 8h}", []string{InvalidFleetWindows}, "windows[0].schedule"},
		{"an unknown field fails closed", "- {name: n, kind: deny, shedule: '0 1 * * *'}", []string{InvalidFleetWindows}, "shedule"},
		{"an over-size list fails closed", "[" + strings.Repeat("{},", 1<<18) + "{}]", []string{InvalidFleetWindows}, "over the limit of 65536 (fix: fewer windows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := map[string]string{}
			if tc.value != "" {
				data[contract.WindowsKey] = tc.value
			}
			ws, p := ParseFleetWindows(data)
			var names []string
			for _, w := range ws {
				names = append(names, w.Name)
			}
			if strings.Join(names, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("windows %v, want %v", names, tc.want)
			}
			if (p == nil) != (tc.problem == "") || (p != nil && !strings.Contains(p.Message, tc.problem)) {
				t.Fatalf("problem %v, want %q", p, tc.problem)
			}
			if tc.want != nil && tc.want[0] == InvalidFleetWindows && !ws[0].ActiveAt(time.Now()) {
				t.Fatal("an unreadable list does not hold")
			}
		})
	}
	if _, problems := ParseFleet(map[string]string{contract.WindowsKey: "[]"}); len(problems) != 0 {
		t.Fatalf("windows is a key of the fleet ConfigMap: %v", problems)
	}
}

func TestOverrideWindowKey(t *testing.T) {
	c := Parse(map[string]string{contract.OverrideWindowKey: " freeze ", contract.ByKey: "alice"}, nil, time.Now())
	if c.OverrideWindow != "freeze" || len(c.Problems) != 0 {
		t.Fatalf("%+v", c)
	}
	if c = Parse(map[string]string{contract.OverrideWindowKey: ""}, nil, time.Now()); len(c.Problems) != 1 {
		t.Fatalf("an empty override is not refused: %+v", c.Problems)
	}
}
