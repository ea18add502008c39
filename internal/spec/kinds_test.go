package spec_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/hooks/commandhook"
	"github.com/cmp-phase/cmp-phase/internal/hooks/httphook"
	"github.com/cmp-phase/cmp-phase/internal/spec"

	_ "github.com/cmp-phase/cmp-phase/internal/hooks/all"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// The tests below read specs with hooks of every kind, and so need every kind
// registered: they are the package's external tests (spec_test), which may import
// internal/hooks/all, as its internal ones may not.

// TestSeedExamplesValidate: complete examples validate; incomplete ones (no template) fail,
// naming the missing template.
func TestSeedExamplesValidate(t *testing.T) {
	incomplete := map[string]bool{
		"000-progressive-rollout.yaml": true, "000-canary-with-hooks.yaml": true, "000-compliance-deployment.yaml": true,
	}
	files, _ := filepath.Glob("testdata/seeds/*.yaml")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s, err := spec.Parse(f, b, targets.NewCache(16))
			if incomplete[filepath.Base(f)] {
				if err == nil || !strings.Contains(err.Error(), "spec.template: is required") {
					t.Fatalf("want only the missing template, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Phases) == 0 || len(s.Generators) == 0 || len(s.Template) == 0 {
				t.Fatalf("incomplete parse: %+v", s)
			}
		})
	}
}

// TestThePlanCarriesHooksAsItAlwaysHas: plans written before hook kinds read back, and
// write out byte for byte the same.
func TestThePlanCarriesHooksAsItAlwaysHas(t *testing.T) {
	const plan = `[{"name":"infrastructure-check","type":"command","timeout":300000000000,"failurePolicy":"fail","command":{"command":["kubectl","get","nodes"],"env":{"KUBECONFIG":"/etc/kubeconfig"}}},` +
		`{"name":"slack","type":"http","timeout":30000000000,"failurePolicy":"ignore","http":{"url":"https://hooks.example.com/\u003cid\u003e","method":"POST","headers":{"Content-Type":"application/json"},"body":"{\"text\": \"{{ .appset.name }}\"}\n","expectedStatus":200,"insecureSkipVerify":true}},` +
		`{"name":"later","type":"future","timeout":0,"failurePolicy":"fail"}]`
	var hooks []spec.Hook
	if err := json.Unmarshal([]byte(plan), &hooks); err != nil {
		t.Fatal(err)
	}
	if c, ok := hooks[0].Block.(*commandhook.Block); !ok || c.Env["KUBECONFIG"] != "/etc/kubeconfig" || len(c.Command) != 3 {
		t.Fatalf("command: %+v", hooks[0].Block)
	}
	if h, ok := hooks[1].Block.(*httphook.Block); !ok || !h.InsecureSkipVerify || h.URL != "https://hooks.example.com/<id>" {
		t.Fatalf("http: %+v", hooks[1].Block)
	}
	if hooks[2].Block != nil {
		t.Fatalf("a type this build does not know has no block: %+v", hooks[2].Block)
	}
	if b, err := json.Marshal(hooks); err != nil || string(b) != plan {
		t.Fatalf("written again:\n%s\nwant\n%s (%v)", b, plan, err)
	}
}

func TestSeedHooksKeepTheirFields(t *testing.T) {
	s := spec.ParseSeed(t, "testdata/seeds/000-advanced-hooks.yaml")
	pre := s.Phases[0].PreHooks
	if len(pre) != 2 || pre[0].Block.(*commandhook.Block).Env["KUBECONFIG"] != "/etc/kubeconfig" || pre[0].Timeout != 5*time.Minute {
		t.Fatalf("pre-hooks: %+v", pre)
	}
	if h, block := pre[1], pre[1].Block.(*httphook.Block); block.Method != "POST" || h.FailurePolicy != "ignore" || h.Timeout != 30*time.Second || block.ExpectedStatus != 200 {
		t.Fatalf("slack hook: %+v %+v", h, block)
	}
}

// TestFailurePolicySpellings: seed 000's and seed 004's spellings are accepted in any case,
// for every hook type and list, and read in their canonical form; a spelling other than the
// canonical one is noted (validate prints the note), the canonical one is not.
func TestFailurePolicySpellings(t *testing.T) {
	cases := []struct {
		written, want string
		noted         bool
	}{
		{"fail", "fail", false},
		{"ignore", "ignore", false},
		{"abort", "abort", false},
		{"retry", "retry", false},
		{"Abort", "abort", true},
		{"Retry", "retry", true},
		{"Ignore", "ignore", true},
		{"Continue", "ignore", true},
		{"continue", "ignore", true},
		{"FAIL", "fail", true},
		{"rEtRy", "retry", true},
	}
	for _, typ := range []string{"http", "command"} {
		for _, list := range []string{"preHooks", "checks", "postHooks"} {
			for _, c := range cases {
				s, err := spec.Parse("spec.yaml", spec.PolicySpec(list, typ, c.written), targets.NewCache(8))
				if err != nil {
					t.Fatalf("%s %s %s: %v", typ, list, c.written, err)
				}
				ph := s.Phases[0]
				h := map[string][]spec.Hook{"preHooks": ph.PreHooks, "checks": ph.Checks, "postHooks": ph.PostHooks}[list][0]
				if h.FailurePolicy != c.want {
					t.Errorf("%s %s %s: read as %q, want %q", typ, list, c.written, h.FailurePolicy, c.want)
				}
				if noted := len(s.Notes) > 0; noted != c.noted {
					t.Errorf("%s %s %s: notes %v", typ, list, c.written, s.Notes)
				}
				if c.noted && !strings.Contains(s.Notes.Error(), "spec.yaml:") || c.noted && !strings.Contains(s.Notes.Error(), list+"[0].failurePolicy: \""+c.written+"\" is read as "+c.want) {
					t.Errorf("%s %s %s: note %q", typ, list, c.written, s.Notes.Error())
				}
			}
		}
	}
}
