package control

import (
	"slices"
	"strings"
	"testing"
)

func TestApprovalKeysAreRead(t *testing.T) {
	tests := []struct {
		name           string
		data           map[string]string
		approve        string
		reject         string
		approver       string
		approverGroups []string
	}{
		{"an approval with who and groups", map[string]string{"approve": "prod", "approver": " alice ", "approver-groups": "sre, system:authenticated,sre"}, "prod", "", "alice", []string{"sre", "system:authenticated"}},
		{"an approval by hand, by only", map[string]string{"approve": "prod", "by": "carol"}, "prod", "", "", nil},
		{"a rejection with its reason", map[string]string{"reject": "staging", "reason": "error budget spent", "approver": "bob"}, "", "staging", "bob", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Parse(tc.data, phases, now)
			if len(c.Problems) != 0 {
				t.Fatalf("%v", c.Problems)
			}
			if c.Approve != tc.approve || c.Reject != tc.reject || c.Approver != tc.approver || !slices.Equal(c.ApproverGroups, tc.approverGroups) {
				t.Fatalf("%+v", c)
			}
		})
	}
}

func TestInvalidApprovalKeysSayWhatToDo(t *testing.T) {
	tests := []struct {
		name string
		data map[string]string
		key  string
		want string
	}{
		{"a rejection without a reason", map[string]string{"reject": "prod"}, "reject", "needs a reason (fix: write why in reason"},
		{"a rejection of no phase", map[string]string{"reject": "qa", "reason": "x"}, "reject", `no phase "qa" (fix: one of dev, staging, prod)`},
		{"approve and reject at once", map[string]string{"approve": "prod", "reject": "prod", "reason": "x"}, "reject", "approve and reject at once (fix: keep one)"},
		{"an approver alone", map[string]string{"approver": "alice"}, "approver", "approver only goes with approve or reject"},
		{"approver groups alone", map[string]string{"approver-groups": "sre"}, "approver-groups", "approver-groups only goes with approve or reject"},
		{"an empty approver", map[string]string{"approve": "prod", "approver": " "}, "approver", "names nobody"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Parse(tc.data, phases, now)
			for _, p := range c.Problems {
				if p.Key == tc.key && strings.Contains(p.Message, tc.want) {
					if c.Reject != "" {
						t.Fatalf("a refused reject is still read: %+v", c)
					}
					return
				}
			}
			t.Fatalf("problems %v, want %s: %q", c.Problems, tc.key, tc.want)
		})
	}
}

// FuzzParseApprovals: any values of the approval keys parse without panic, every problem
// says something, and a reject is read only with a reason and a known phase.
func FuzzParseApprovals(f *testing.F) {
	f.Add("prod", "", "alice", "sre,dba", "")
	f.Add("", "prod", "", ",,", "why")
	f.Add("qa", "prod", " ", "a, a", " ")
	f.Fuzz(func(t *testing.T, approve, reject, approver, groups, reason string) {
		data := map[string]string{"approver": approver, "approver-groups": groups, "reason": reason}
		if approve != "" {
			data["approve"] = approve
		}
		if reject != "" {
			data["reject"] = reject
		}
		c := Parse(data, phases, now)
		for _, p := range c.Problems {
			if p.Message == "" {
				t.Fatalf("a problem says nothing: %+v", p)
			}
		}
		if c.Reject != "" && (c.Reason == "" || !slices.Contains(phases, c.Reject) || c.Approve != "") {
			t.Fatalf("reject read without reason, phase or alone: %+v", c)
		}
		for _, g := range c.ApproverGroups {
			if g == "" || strings.Contains(g, ",") {
				t.Fatalf("group %q", g)
			}
		}
	})
}
