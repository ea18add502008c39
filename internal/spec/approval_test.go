package spec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// withApproval is the base spec with an approval block on its second phase.
func withApproval(block string) []byte {
	b := specWith(`'true'`, "1")
	return []byte(strings.Replace(string(b), "      - name: rest\n", "      - name: rest\n        approval: "+block+"\n", 1))
}

func TestApprovalParses(t *testing.T) {
	tests := []struct {
		name, block string
		want        *Approval
		gate        bool // the phase's size is gated: an approval to enter
	}{
		{"two from sre after checks", "{required: 2, groups: [sre], afterChecks: true}", &Approval{Required: 2, Groups: []string{"sre"}, AfterChecks: true}, false},
		{"required defaults to one", "{groups: [sre, dba]}", &Approval{Required: 1, Groups: []string{"sre", "dba"}}, true},
		{"an empty block is one approval by anyone", "{}", &Approval{Required: 1}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("spec.yaml", withApproval(tc.block), targets.NewCache(8))
			if err != nil {
				t.Fatal(err)
			}
			ph := s.Phases[1]
			if !reflect.DeepEqual(ph.Approval, tc.want) || ph.Size.Gate != tc.gate || ph.Size.Kind != SizeCount || ph.Size.Value != 1 {
				t.Fatalf("approval %+v size %+v", ph.Approval, ph.Size)
			}
			if !reflect.DeepEqual(ApprovalOf(ph), tc.want) {
				t.Fatalf("ApprovalOf %+v", ApprovalOf(ph))
			}
			if s.Phases[0].Approval != nil || ApprovalOf(s.Phases[0]) != nil {
				t.Fatalf("the canary phase has no gate: %+v", s.Phases[0].Approval)
			}
		})
	}
}

func TestApprovalRefusals(t *testing.T) {
	tests := []struct{ name, block, want string }{
		{"zero required", "{required: 0}", "phases[1].approval.required: out of range: 0 (fix: use 1 or more distinct approvers)"},
		{"a group twice", "{groups: [sre, sre]}", `phases[1].approval.groups[1]: invalid group "sre"`},
		{"an unknown field", "{required: 1, group: sre}", `phases[1].approval.group: unknown field "group"`},
		{"a string count", `{required: "2"}`, "phases[1].approval.required: must be an integer"},
		{"afterChecks not a boolean", "{afterChecks: later}", "phases[1].approval.afterChecks: must be a boolean"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("spec.yaml", withApproval(tc.block), targets.NewCache(8))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestManualGateIsOneApproval: RollingSync's maxUpdate: 0 is the same gate as approval
// {required: 1}, to enter the step's first phase.
func TestManualGateIsOneApproval(t *testing.T) {
	sync := parseSeed(t, "testdata/seeds/003-guestbook-rolling-sync.yaml")
	if a := ApprovalOf(sync.Phases[1]); !reflect.DeepEqual(a, &Approval{Required: 1}) {
		t.Fatalf("maxUpdate: 0 is %+v", a)
	}
}

func TestComposedApprovals(t *testing.T) {
	gated := "type: RollingSync\nrollingSync: {steps: [{maxUpdate: 0}, {}]}"
	entry := twoPhases + "\n  approval: {required: 2, groups: [sre]}"
	s, err := Parse("c.yaml", []byte(composed(gated, entry)), targets.NewCache(16))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Phases {
		want := p.Name == "rest-step1" || p.Name == "rest-step2"
		if (p.Approval != nil) != want || (want && (!p.Size.Gate || p.Approval.Required != 2)) {
			t.Errorf("%s: approval %+v size %+v", p.Name, p.Approval, p.Size)
		}
	}
	if a := ApprovalOf(s.Phases[0]); a == nil || a.Required != 1 || !s.Phases[0].Size.Gate {
		t.Errorf("the step's gate on canary-step1: %+v", a)
	}
	after := strings.Replace(twoPhases, "- name: canary\n", "- name: canary\n  approval: {afterChecks: true}\n", 1)
	_, err = Parse("c.yaml", []byte(composed(gated, after)), targets.NewCache(16))
	if want := "phases[0].approval.afterChecks: spec.strategy step 1 has maxUpdate: 0"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("two gates on one phase: got %v, want %q", err, want)
	}
}
