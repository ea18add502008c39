package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/agent/hookrun"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// probe is a hook kind defined here and nowhere else: `type: probe` answers what its
// block says. It shows that a kind is its own code plus one registration line (init,
// below): the parser validates it, the engine gates on it by its traits (it may pause
// for a person when Inconclusive) and the agent's runner runs it.
type probeBlock struct {
	Answer string `json:"answer"`
}

// Fill fills the answer.
func (b *probeBlock) Fill(f func(string) string) spec.HookBlock {
	c := *b
	c.Answer = f(b.Answer)
	return &c
}

func parseProbe(r *spec.HookReader) *probeBlock {
	n := r.Block("add probe.answer")
	if n == nil {
		return nil
	}
	path := r.Path() + ".probe"
	f := r.Fields(n, path, "answer")
	return &probeBlock{Answer: r.OneOf(r.Required(f, n, path, "answer", "say Succeeded, Failed or Inconclusive"), path+".answer", "",
		string(hooks.Succeeded), string(hooks.Failed), string(hooks.Inconclusive))}
}

type probeKind struct{ spec.HookKind }

func (probeKind) Reach(spec.HookBlock) hooks.Reach { return hooks.Reach{} }

func (probeKind) Run(_ context.Context, _ *hooks.Runner, c hooks.Call) hooks.Result {
	b, ok := c.Hook.Block.(*probeBlock)
	if !ok {
		return hooks.Result{Outcome: hooks.Errored, Message: "no probe block"}
	}
	return hooks.Result{Outcome: hooks.Outcome(b.Answer), Message: "probed " + c.Phase}
}

func init() {
	hooks.Register(probeKind{spec.NewHookKind[probeBlock](spec.HookKindDef[*probeBlock]{
		Name: "probe", MaxTimeout: 10 * time.Minute, TimeoutFix: "use at most 10m", Parse: parseProbe,
		Traits: spec.HookTraits{InconclusiveFix: "look at the probe"},
	})})
}

const probeSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: web
spec:
  generators:
  - list:
      elements: [{name: dev-1, env: dev}]
    deploymentStrategy:
      type: phaseDeployment
      phases:
      - name: dev
        targets:
        - values: {env: dev}
        checks:
        - name: answer
          type: probe
          probe: {answer: ANSWER}
  template:
    metadata:
      name: 'web-{{name}}'
    spec:
      project: default
      source: {repoURL: 'https://example.com/web.git', path: web, targetRevision: main}
      destination: {server: 'https://kubernetes.default.svc', namespace: web}
`

// TestAKindDefinedInATestRunsThroughValidateTheEngineAndTheRunner: the probe kind is
// validated with file, field and fix; its check runs once the phase's member synced; a
// Succeeded answer passes the phase, an Inconclusive one pauses the rollout with the fix
// its trait gives.
func TestAKindDefinedInATestRunsThroughValidateTheEngineAndTheRunner(t *testing.T) {
	_, err := spec.Parse("spec.yaml", []byte(strings.Replace(probeSpec, "ANSWER", "maybe", 1)), targets.NewCache(8))
	if err == nil || !strings.Contains(err.Error(), "checks[0].probe.answer") || !strings.Contains(err.Error(), "maybe") {
		t.Fatalf("a bad probe answer must be refused at its field: %v", err)
	}
	for answer, want := range map[string]string{"Succeeded": string(rollout.StatusCompleted), "Inconclusive": "(fix: look at the probe, then resume"} {
		t.Run(answer, func(t *testing.T) {
			got := runProbe(t, answer)
			if !strings.Contains(got, want) {
				t.Fatalf("a %s probe: %s, want %s", answer, got, want)
			}
		})
	}
}

// runProbe takes the probe spec through the engine and the agent's runner, and says how
// the rollout stands.
func runProbe(t *testing.T, answer string) string {
	t.Helper()
	s, err := spec.Parse("spec.yaml", []byte(strings.Replace(probeSpec, "ANSWER", answer, 1)), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	_, body, id, err := s.Revision()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1000, 0)
	pl := plan.Plan{Revision: id, Body: body, Phases: s.Phases}
	st := &state.State{Schema: state.Schema, Generation: 1, Deployed: "r1", Children: []string{"web-dev-1"}, Revisions: map[string]json.RawMessage{"r1": json.RawMessage(`{}`)}}
	o := rollout.Observed{
		Subjects: []targets.Child{{Key: "web-dev-1", Subject: targets.Subject{Name: "dev-1", Labels: map[string]string{"env": "dev"}}}},
		Changed:  map[string]bool{"web-dev-1": true},
		Children: map[string]rollout.Observation{"web-dev-1": {Revision: "r1", SpecCompared: true, SyncStatus: "Synced", Health: "Healthy"}},
	}
	st, _, err = rollout.Step(pl, st, o, t0)
	if err != nil {
		t.Fatal(err)
	}
	o.Children["web-dev-1"] = rollout.Observation{Revision: id, SpecCompared: true, SyncStatus: "Synced", OperationPhase: "Succeeded",
		OperationFinishedAt: t0.Add(5 * time.Second), ReconciledAt: t0.Add(6 * time.Second), Health: "Healthy"}
	st, acts, err := rollout.Step(pl, st, o, t0.Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	a := New(nil, nil, Options{Namespace: "argocd"}, nil, nil, Faults{})
	a.inv = &inventory.Inventory{}
	p := &pass{plan: &plan.Plan{Rollout: "web", Namespace: "argocd", Revision: id, Body: body, Phases: s.Phases}}
	o.Hooks = map[string]rollout.HookResult{}
	for _, act := range acts {
		if act.Kind == rollout.ActRunHook {
			o.Hooks[act.Key], _ = a.runs.Attempts(context.Background(), a.hookRun(p, id, act, hookrun.Key("web", st.Rollout, 0, act.Key), t0, nil))
		}
	}
	if len(o.Hooks) != 1 {
		t.Fatalf("the engine did not run the probe: %+v", acts)
	}
	st, _, err = rollout.Step(pl, st, o, t0.Add(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if st.Paused != nil {
		return "paused: " + st.Paused.Reason
	}
	return string(st.Rollout.Status)
}
