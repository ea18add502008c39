package control

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// TestAnOverLongValueIsAProblemAndStaysOutOfTheState: a 900 KiB reason is refused naming
// the key, its size, the limit and the fix; what the engine copies into the state (the
// controls and every refused edit's text) stays small, so the state keeps being written.
func TestAnOverLongValueIsAProblemAndStaysOutOfTheState(t *testing.T) {
	huge := strings.Repeat("é", 450<<10) // 900 KiB, multi-byte so a cut could split a rune
	cases := []struct {
		key  string
		data map[string]string
		then func(Controls) bool
	}{
		{contract.PauseKey, map[string]string{contract.PauseKey: huge},
			func(c Controls) bool { return len(c.Pause) <= MaxReason && c.Pause != "" && utf8.ValidString(c.Pause) }},
		{contract.AbortKey, map[string]string{contract.AbortKey: huge},
			func(c Controls) bool { return len(c.Abort) <= MaxReason && c.Abort != "" && utf8.ValidString(c.Abort) }},
		{contract.RollbackKey, map[string]string{contract.RollbackKey: huge},
			func(c Controls) bool { return c.Rollback == "" }},
		{contract.ReasonKey, map[string]string{contract.PauseKey: "x", contract.ReasonKey: huge},
			func(c Controls) bool { return c.Reason == "" && c.Pause == "x" }},
		{contract.ByKey, map[string]string{contract.AbortKey: "x", contract.ByKey: huge},
			func(c Controls) bool { return c.By == "" && c.Abort == "x" }},
		{contract.ApproverKey, map[string]string{contract.ApproveKey: "prod", contract.ApproverKey: huge},
			func(c Controls) bool { return c.Approver == "" && c.Approve == "prod" }},
		{"pasue", map[string]string{"pasue": huge}, func(Controls) bool { return true }},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			c := Parse(tc.data, phases, now)
			if !tc.then(c) {
				t.Fatalf("controls %.200v", c)
			}
			found := false
			for _, p := range c.Problems {
				if len(p.String()) > 2*MaxReason {
					t.Fatalf("a refused edit's text is %d bytes: it goes into the state", len(p.String()))
				}
				if p.Key == tc.key && (tc.key == "pasue" || strings.Contains(p.Message, "is 921600 bytes, over the limit of 1024") &&
					strings.Contains(p.Message, "(fix: shorten it to at most 1024 bytes)")) {
					found = true
				}
			}
			if !found {
				t.Fatalf("problems %.300v, want %s refused with its size, the limit and the fix", c.Problems, tc.key)
			}
		})
	}
	if c := Parse(map[string]string{contract.PauseKey: strings.Repeat("x", MaxReason)}, phases, now); len(c.Problems) != 0 {
		t.Fatalf("a reason at the limit is refused: %v", c.Problems)
	}
}
