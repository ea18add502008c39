package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/content"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Source is where a render's inputs come from: the CMP server's (a streamed repository,
// the request's env, informers) or generate's (a directory, the process's env, files or
// the API server read once).
type Source interface {
	// Spec parses the spec in the app directory dir.
	Spec(dir string) (*spec.Spec, error)
	// SpecGone is the render of parent when its app directory has no spec (loadErr, for
	// which spec.IsMissing holds): loadErr itself when no rollout of the parent is known.
	SpecGone(ctx context.Context, parent string, loadErr error) ([][]byte, error)
	// Inputs is the rollout's state (nil: it has none) and the cluster inventory.
	Inputs(ctx context.Context, rollout string) (*state.State, *inventory.Inventory, error)
	// Root is the root of the parent's repository checkout.
	Root() (string, error)
}

// Pipeline renders an app directory. Its renderer and digester may be kept across renders
// (the sidecar's caches) or made for one (generate).
type Pipeline struct {
	Renderer       *render.Renderer
	Digests        *content.Digester
	StateNamespace string // namespace of the plan ConfigMap
	// StaleWait is how long a render whose state is behind the parent's PHASE_GEN
	// (render.ErrStale) is tried again; zero: it is not.
	StaleWait time.Duration
}

// retryEvery is the pause between tries of a stale render.
const retryEvery = 200 * time.Millisecond

// Run renders the spec in appDir with src's inputs and the plugin's variables as lookup
// reads them (os.LookupEnv, or the env of a CMP request).
func (p *Pipeline) Run(ctx context.Context, src Source, appDir string, lookup func(string) (string, bool)) ([][]byte, error) {
	sp, err := src.Spec(appDir)
	if spec.IsMissing(err) {
		parent, _ := lookup(contract.EnvAppName)
		return src.SpecGone(ctx, parent, err)
	}
	if err != nil {
		return nil, err
	}
	env, err := inputs.Env(lookup, p.StateNamespace)
	if err != nil {
		return nil, err
	}
	revision, _ := lookup(contract.EnvAppRevision)
	preview := inputs.Preview(revision, appDir)
	deadline := time.Now().Add(p.StaleWait)
	for {
		docs, err := p.once(ctx, src, sp, env, preview)
		if err == nil || !errors.Is(err, render.ErrStale) || p.StaleWait <= 0 || time.Now().After(deadline) {
			return docs, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("render: %w (last: %v)", ctx.Err(), err)
		case <-time.After(retryEvery):
		}
	}
}

// once renders with the state src has now; a preview renders the next batch as if
// admitted (nothing is written: the render only feeds argocd app diff).
func (p *Pipeline) once(ctx context.Context, src Source, sp *spec.Spec, env render.Env, preview bool) ([][]byte, error) {
	st, inv, err := src.Inputs(ctx, sp.Name)
	if err != nil {
		return nil, err
	}
	if preview {
		st = rollout.PreviewNext(st, sp.Phases)
	}
	root, err := src.Root()
	if err != nil {
		return nil, err
	}
	in := render.Input{Spec: sp, Inventory: inv, State: st, Env: env, Ctx: ctx}
	if in.Content, in.Unphased, err = inputs.Content(p.Renderer, p.Digests, in, root); err != nil {
		return nil, err
	}
	return p.Renderer.Render(in)
}
