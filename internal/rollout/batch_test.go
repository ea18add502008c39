package rollout

import (
	"fmt"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

func TestNextAdmission(t *testing.T) {
	all, gate := spec.Size{Kind: spec.SizeAll}, spec.Size{Kind: spec.SizeCount, Gate: true}
	abcde := []string{"a", "b", "c", "d", "e"}
	set := func(keys ...string) map[string]bool {
		out := map[string]bool{}
		for _, k := range keys {
			out[k] = true
		}
		return out
	}
	cases := []struct {
		name string
		b    phaseBatch
		next string
		full bool
	}{
		{"phaseDeployment admits its size at once", phaseBatch{Size: pct(40), Members: abcde}, "[a b]", true},
		{"phaseDeployment counts what an earlier phase admitted", phaseBatch{Size: pct(60), Members: abcde, Admitted: set("a", "b")}, "[c]", true},
		{"phaseDeployment already at its size admits nobody", phaseBatch{Size: pct(40), Members: abcde, Admitted: set("d", "e")}, "[]", true},
		{"phaseDeployment all after a canary", phaseBatch{Size: all, Members: abcde, Admitted: set("a")}, "[b c d e]", true},
		{"skipped members are neither admitted nor counted", phaseBatch{Size: pct(50), Members: []string{"a", "b", "c", "d"}, Skipped: []string{"a"}}, "[b]", true},
		{"a step fills its free slots", phaseBatch{Size: count(2), Steps: true, Members: abcde, Started: []string{"a", "b"}, Admitted: set("a", "b"), InFlight: 1}, "[c]", false},
		{"a step with no free slot waits", phaseBatch{Size: count(2), Steps: true, Members: abcde, Started: []string{"a", "b"}, Admitted: set("a", "b"), InFlight: 2}, "[]", false},
		{"a step's last batch makes it full", phaseBatch{Size: count(2), Steps: true, Members: abcde, Started: []string{"a", "b", "c"}, Admitted: set("a", "b", "c")}, "[d e]", true},
		{"a step with everyone started is full while some are in flight", phaseBatch{Size: count(2), Steps: true, Members: abcde, Started: abcde, Admitted: set(abcde...), InFlight: 2}, "[]", true},
		{"a step never admits a skipped member", phaseBatch{Size: all, Steps: true, Members: []string{"a", "b"}, Skipped: []string{"b"}}, "[a]", true},
		{"an unapproved gate admits nobody and holds", phaseBatch{Size: gate, Steps: true, Members: abcde}, "[]", false},
		{"an approved gate admits everyone", phaseBatch{Size: gate, Steps: true, Approved: true, Members: abcde, Started: []string{"a"}, Admitted: set("a")}, "[b c d e]", true},
		{"an unapproved gate holds while a skipped member is not admitted", phaseBatch{Size: gate, Steps: true, Members: []string{"a", "b"}, Skipped: []string{"b"}, Started: []string{"a"}, Admitted: set("a")}, "[]", false},
		{"an unapproved gate whose members are all admitted holds nothing", phaseBatch{Size: gate, Steps: true, Members: []string{"a"}, Started: []string{"a"}, Admitted: set("a")}, "[]", true},
		{"a phase without members is full", phaseBatch{Size: pct(10)}, "[]", true},
		// A phase composed with a spec.strategy step: its size says how many, the step's
		// maxUpdate (Throttle) how many at once; the step's gate holds its first phase.
		{"a throttled phase admits at most its throttle at once", phaseBatch{Size: pct(80), Throttle: count(2), Members: abcde}, "[a b]", false},
		{"a throttled phase fills its free slots", phaseBatch{Size: pct(80), Throttle: count(2), Members: abcde, Started: []string{"a", "b"}, Admitted: set("a", "b"), InFlight: 1}, "[c]", false},
		{"a throttled phase with no free slot waits", phaseBatch{Size: pct(80), Throttle: count(2), Members: abcde, Started: []string{"a", "b"}, Admitted: set("a", "b"), InFlight: 2}, "[]", false},
		{"a throttled phase is full at its size", phaseBatch{Size: pct(80), Throttle: count(2), Members: abcde, Started: []string{"a", "b", "c"}, Admitted: set("a", "b", "c")}, "[d]", true},
		{"a percent throttle counts the phase's members", phaseBatch{Size: all, Throttle: pct(40), Members: abcde}, "[a b]", false},
		{"an unapproved gated phase admits nobody", phaseBatch{Size: spec.Size{Kind: spec.SizePercent, Value: 40, Gate: true}, Members: abcde}, "[]", false},
		{"an approved gated phase admits its own size", phaseBatch{Size: spec.Size{Kind: spec.SizePercent, Value: 40, Gate: true}, Approved: true, Members: abcde}, "[a b]", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := nextAdmission(c.b)
			if fmt.Sprint(a.Next) != c.next || a.Full != c.full {
				t.Fatalf("next %v full %v, want next %s full %v", a.Next, a.Full, c.next, c.full)
			}
		})
	}
}
