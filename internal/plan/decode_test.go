package plan

import (
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestABadPlanIsRefusedNamingTheFix: a plan the agent cannot read whole is an error naming
// the plan and the fix, never a plan with a part missing.
func TestABadPlanIsRefusedNamingTheFix(t *testing.T) {
	raw, err := os.ReadFile("testdata/head-2586d71/all-fields.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ old, new, want string }{
		"newer schema":     {`{\"confirmRemoval\"`, `{\"schema\":3,\"confirmRemoval\"`, "schema 3 is newer than this agent's 2 (fix: upgrade the agent"},
		"no revision":      {`"revision":"fafd4c770e6fe414"`, `"revision":""`, "is incomplete (fix: let the parent re-render it)"},
		"foreign spec":     {`"revision":"fafd4c770e6fe414"`, `"revision":"0000000000000000"`, "does not match its spec"},
		"bad duration":     {`\"waitDuration\":\"1m30s\"`, `\"waitDuration\":\"soon\"`, "phase canary waitDuration"},
		"bad expression":   {`\"order\":\"labels.region\"`, `\"order\":\"labels.(\"`, "phase canary: order"},
		"bad budget":       {`\"maxFailures\":{\"kind\":2,\"value\":20}`, `\"maxFailures\":{\"kind\":7}`, "invalid maxFailures"},
		"bad order":        {`\"deletionOrder\":\"\"`, `\"deletionOrder\":\"Sideways\"`, `unknown deletionOrder "Sideways"`},
		"no approver":      {`\"required\":2`, `\"required\":0`, "approval.required is 0"},
		"bad window":       {`\"timeZone\":\"Europe/Paris\"`, `\"timeZone\":\"Mars/Olympus\"`, "windows"},
		"truncated phases": {`\"phases\":[`, `\"phases\":[[`, contract.PlanPhasesKey},
		"bad other key":    {`"revision":`, `"revisions.json":"{",` + `"revision":`, contract.PlanRevisionsKey},
		// issue 47: a 1 MiB key of empty objects would take 700 MiB to decode.
		"costly phases": {`\"phases\":[`, `\"phases\":[` + strings.Repeat(`{},`, 300000), "key phases.json: 901787 bytes that would take up to"},
		"costly key":    {`"revision":`, `"children.json":"[` + strings.Repeat(`{},`, 300000) + `{}]",` + `"revision":`, "key children.json: 900004 bytes that would take up to"},
	} {
		t.Run(name, func(t *testing.T) {
			b := strings.Replace(string(raw), c.old, c.new, 1)
			if b == string(raw) {
				t.Fatalf("%q is not in the golden plan", c.old)
			}
			p, err := Decode(configMap(t, []byte(b)), targets.NewCache(16))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "argocd/every-field-plan") {
				t.Fatalf("got %v, %v; want an error with %q naming the plan", p, err, c.want)
			}
		})
	}
}

// FuzzDecode: no phases document makes Decode panic; what it accepts writes and reads back.
func FuzzDecode(f *testing.F) {
	raw, err := os.ReadFile("testdata/head-2586d71/all-fields.json")
	if err != nil {
		f.Fatal(err)
	}
	cm := configMap(&testing.T{}, raw)
	f.Add(cm.Data[contract.PlanPhasesKey])
	f.Add(`{"phases":[{"name":"a","size":{"kind":1,"value":-3},"tracks":"1"}]}`)
	f.Fuzz(func(t *testing.T, phases string) {
		c := cm
		c.Data = maps.Clone(cm.Data)
		c.Data[contract.PlanPhasesKey] = phases
		p, err := Decode(c, targets.NewCache(16))
		if err != nil {
			return
		}
		roundTrip(t, p)
	})
}
