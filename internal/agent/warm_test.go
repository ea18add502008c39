package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/agent/argoapi"
	"github.com/cmp-phase/cmp-phase/internal/agent/shardset"
	"github.com/cmp-phase/cmp-phase/internal/plan"
)

// TestTheEngineIsToldWhatWasWarmed: the engine previews the next batch (rollout.Observed's
// Warmed, NoWarm) only for a generation warmNext has not looked at, and never for a
// rollout no pass warms: no argocd-server API, no parent, or children elsewhere. A
// sharded rollout is warmed like one of one parent (actShards calls warmNext): told
// NoWarm, it was never previewed, so actShards found nothing to warm.
func TestTheEngineIsToldWhatWasWarmed(t *testing.T) {
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("t"), 0o600); err != nil {
		t.Fatal(err)
	}
	api, err := argoapi.New(argoapi.Config{Server: "http://127.0.0.1:1", TokenFile: token})
	if err != nil {
		t.Fatal(err)
	}
	a := New(nil, nil, Options{Namespace: testNS, ArgoCD: api}, nil, nil, Faults{})
	p := func() *pass {
		return &pass{plan: &plan.Plan{Rollout: "web", Parent: "web-parent", Children: &plan.ChildEnv{Namespace: testNS}}}
	}
	if gen, no := a.warmSeen(p()); gen != 0 || no {
		t.Fatalf("nothing warmed yet: %d %v", gen, no)
	}
	a.warm.FirstLook("web", 5)
	if gen, no := a.warmSeen(p()); gen != 5 || no {
		t.Fatalf("generation 5 looked at: %d %v", gen, no)
	}
	sharded := p()
	sharded.shards = []shardset.Member{{}, {}}
	if gen, no := a.warmSeen(sharded); gen != 5 || no {
		t.Fatalf("a sharded rollout is not warmed: %d %v", gen, no)
	}
	for name, edit := range map[string]func(*pass){
		"no parent":          func(p *pass) { p.plan.Parent = "" },
		"no child env":       func(p *pass) { p.plan.Children = nil },
		"children elsewhere": func(p *pass) { p.plan.Children.Namespace = "other" },
	} {
		q := p()
		edit(q)
		if _, no := a.warmSeen(q); !no {
			t.Errorf("%s: warmed", name)
		}
	}
	if _, no := New(nil, nil, Options{Namespace: testNS}, nil, nil, Faults{}).warmSeen(p()); !no {
		t.Error("an agent without argocd-server's API warms")
	}
}
