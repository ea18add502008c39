package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/content"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/spec/spectest"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// fake is a Source that records what the pipeline asked of it, in order.
type fake struct {
	calls    []string
	specErr  error
	inputErr error
	rootErr  error
	// states are the states Inputs returns, one per call (the last one again after).
	states []*state.State
}

func (f *fake) Spec(dir string) (*spec.Spec, error) {
	f.calls = append(f.calls, "spec "+dir)
	if f.specErr != nil {
		return nil, f.specErr
	}
	return spec.Parse("spec.yaml", []byte(spectest.Base), targets.NewCache(8))
}

func (f *fake) SpecGone(_ context.Context, parent string, loadErr error) ([][]byte, error) {
	f.calls = append(f.calls, "gone "+parent)
	return nil, loadErr
}

func (f *fake) Inputs(_ context.Context, rollout string) (*state.State, *inventory.Inventory, error) {
	f.calls = append(f.calls, "inputs "+rollout)
	if f.inputErr != nil {
		return nil, nil, f.inputErr
	}
	var st *state.State
	if len(f.states) > 0 {
		st = f.states[0]
		if len(f.states) > 1 {
			f.states = f.states[1:]
		}
	}
	return st, &inventory.Inventory{Clusters: []inventory.Cluster{{Name: "a", Server: "https://a", Labels: map[string]string{"env": "x"}}}}, nil
}

func (f *fake) Root() (string, error) {
	f.calls = append(f.calls, "root")
	return "", f.rootErr
}

func newPipeline(wait time.Duration) *Pipeline {
	return &Pipeline{Renderer: render.New(4), Digests: content.NewDigester(1, content.Limits{}), StateNamespace: contract.DefaultNamespace, StaleWait: wait}
}

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestRunAsksTheSourceInOrder(t *testing.T) {
	f := &fake{}
	docs, err := newPipeline(0).Run(context.Background(), f, "app", envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no documents rendered")
	}
	if got, want := strings.Join(f.calls, ", "), "spec app, inputs demo, root"; got != want {
		t.Errorf("calls: %s, want %s", got, want)
	}
}

func TestRunStopsAtTheFirstError(t *testing.T) {
	inputs := errors.New("no inventory")
	f := &fake{inputErr: inputs, rootErr: errors.New("repository root")}
	if _, err := newPipeline(0).Run(context.Background(), f, "app", envOf(nil)); !errors.Is(err, inputs) {
		t.Fatalf("error %v, want %v", err, inputs)
	}
	if got, want := strings.Join(f.calls, ", "), "spec app, inputs demo"; got != want {
		t.Errorf("calls: %s, want %s", got, want)
	}
	bad := envOf(map[string]string{contract.PluginEnvPhaseGen: "x"})
	f = &fake{}
	if _, err := newPipeline(0).Run(context.Background(), f, "app", bad); err == nil || !strings.Contains(err.Error(), "is not a generation") {
		t.Fatalf("error %v, want the env's", err)
	}
	if got, want := strings.Join(f.calls, ", "), "spec app"; got != want {
		t.Errorf("calls: %s, want %s", got, want)
	}
}

func TestAMissingSpecIsTheSourcesAnswer(t *testing.T) {
	missing := spec.Errors{{Msg: "x"}}
	_, loadErr := spec.Load(t.TempDir(), targets.NewCache(8))
	if !spec.IsMissing(loadErr) {
		t.Fatalf("an empty directory's load error %v is not missing", loadErr)
	}
	f := &fake{specErr: loadErr}
	_, err := newPipeline(0).Run(context.Background(), f, "app", envOf(map[string]string{contract.EnvAppName: "parent"}))
	if !errors.Is(err, loadErr) && err.Error() != loadErr.Error() {
		t.Fatalf("error %v, want %v", err, loadErr)
	}
	if got, want := strings.Join(f.calls, ", "), "spec app, gone parent"; got != want {
		t.Errorf("calls: %s, want %s", got, want)
	}
	f = &fake{specErr: missing}
	if _, err := newPipeline(0).Run(context.Background(), f, "app", envOf(nil)); err == nil {
		t.Fatal("a spec error rendered")
	}
	if got, want := strings.Join(f.calls, ", "), "spec app"; got != want {
		t.Errorf("calls: %s, want %s", got, want)
	}
}

func TestAStaleStateIsTriedAgainOnlyWhenAsked(t *testing.T) {
	gen := envOf(map[string]string{contract.PluginEnvPhaseGen: "2"})
	behind, caught := &state.State{Schema: state.Schema, Generation: 1}, &state.State{Schema: state.Schema, Generation: 2}
	f := &fake{states: []*state.State{behind, caught}}
	if _, err := newPipeline(0).Run(context.Background(), f, "app", gen); !errors.Is(err, render.ErrStale) {
		t.Fatalf("error %v, want %v with no wait", err, render.ErrStale)
	}
	f = &fake{states: []*state.State{behind, caught}}
	if _, err := newPipeline(5*time.Second).Run(context.Background(), f, "app", gen); errors.Is(err, render.ErrStale) {
		t.Fatalf("error %v after the state caught up", err)
	}
	if got, want := strings.Join(f.calls, ", "), "spec app, inputs demo, root, inputs demo, root"; got != want {
		t.Errorf("calls: %s, want %s", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f = &fake{states: []*state.State{behind}}
	_, err := newPipeline(5*time.Second).Run(ctx, f, "app", gen)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "(last: ") {
		t.Fatalf("error %v, want the context's with the last stale error", err)
	}
}
