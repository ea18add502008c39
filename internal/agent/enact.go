package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/agent/childop"
	"github.com/cmp-phase/cmp-phase/internal/agent/failure"
	"github.com/cmp-phase/cmp-phase/internal/agent/passmemo"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// enact applies the moves the engine decided (the Decision's: the state's moves that the
// live children do not show yet): each child gets the spec, labels and annotations the parent's render of this
// state holds — byte for byte the same render — and its sync starts in the same write.
// The child moves the moment it is admitted, not after the parent's re-render and sync
// and the child's own refresh; the parent's render then finds nothing to change.
func (a *Agent) enact(ctx context.Context, p *pass, st *state.State) error {
	return a.enactOnly(ctx, p, st, nil)
}

// enactOnly is enact of the children keep keeps (nil: all): a shard's.
func (a *Agent) enactOnly(ctx context.Context, p *pass, st *state.State, keep func(string) bool) error {
	env := p.plan.Children
	if env == nil || env.Namespace != a.opts.Namespace {
		return nil // a plan that does not say how it renders children, or children we do not watch
	}
	moves := ownMoves(p.decision.Moves, keep)
	moves = a.memoryOf(p.plan.Rollout).Unmoved(moves, p.children)
	if left := movesPerPass - p.moves; len(moves) > left {
		moves, p.moreMoves = moves[:max(left, 0)], true
	}
	if len(moves) == 0 {
		return nil
	}
	keys := make([]string, len(moves))
	for i, m := range moves {
		keys[i] = m.Child
	}
	docs, err := a.renderer.Children(a.childInput(p, st), keys)
	if err != nil {
		return failure.Closed(fmt.Errorf("render the children rollout %s moves: %w", p.plan.Rollout, err))
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(movesAtOnce)
	mem := a.memoryOf(p.plan.Rollout)
	if p.movingSince.IsZero() {
		p.movingSince = time.Now()
	}
	for _, m := range moves {
		if time.Since(p.movingSince) > moveTime {
			p.moreMoves = true
			break
		}
		p.moves++
		g.Go(func() error { return a.moveOne(gctx, p, mem, m, docs[m.Child]) })
	}
	return g.Wait()
}

// moveOne moves child m to its revision (doc, its render) and remembers it moved.
func (a *Agent) moveOne(ctx context.Context, p *pass, mem *passmemo.Memory, m rollout.Move, doc []byte) error {
	live := p.children[m.Child]
	err := a.move(ctx, live, doc, rollout.Marker(m.Revision, m.Since))
	if err == nil || errors.Is(err, errMoved) {
		// a conflict proves the server is past the cached version: moving it again
		// from that version can only conflict again, until the cache catches up
		mem.Moved(live)
	}
	if errors.Is(err, errMoved) {
		return nil
	} else if err != nil {
		return err
	}
	a.log.Info("child moved", "rollout", p.plan.Rollout, "child", m.Child, "revision", m.Revision)
	if live.Operation == nil { // the move started its sync (childop.MovePatch)
		a.metrics.Syncs.WithLabelValues(p.plan.Rollout).Inc()
	}
	if a.faults.AfterMove != nil {
		a.faults.AfterMove(p.plan.Rollout, m.Child)
	}
	return nil
}

// ownMoves are the moves of the children keep keeps (nil: all), in a slice of their own:
// each shard of a pass filters the decision's moves in turn, and filtering them in place
// left the next shard the previous one's moves and zeroed tail (a move of child "", which
// failed the pass closed, and the shard's own moves lost).
func ownMoves(moves []rollout.Move, keep func(string) bool) []rollout.Move {
	if keep == nil {
		return moves
	}
	return slices.DeleteFunc(slices.Clone(moves), func(m rollout.Move) bool { return !keep(m.Child) })
}

// childInput is the render input of a rollout's children in state st, as the parent's
// render makes them (the plan's children namespace and sync options): the moves, the warms
// of the next children and a Job's destination all render through it.
func (a *Agent) childInput(p *pass, st *state.State) render.Input {
	ns, env := a.opts.Namespace, render.Env{StateNamespace: a.opts.Namespace}
	if c := p.plan.Children; c != nil {
		ns, env.SyncOptions = c.Namespace, c.SyncOptions
	}
	return render.Input{Spec: &spec.Spec{Name: p.plan.Rollout, Namespace: ns}, Inventory: a.inventory(), State: st, Env: env}
}

// movesPerPass bounds the moves of one pass (of all its shards): a phase of thousands of children moved in one
// pass held the rollout's worker for a minute, and no child moved early could be counted
// done before the last was moved; the rest are moved on the passes that follow at once.
const movesPerPass = 256

// moveTime bounds the time a pass spends starting moves: on a loaded API server 256 moves
// took six seconds, each a second more before any of them could count as done.
const moveTime = 500 * time.Millisecond

// movesAtOnce bounds the moves in flight: one at a time, a phase of 1,000 children held
// the rollout's worker for ≈ 20 s of round trips before the next decision could count
// any of them done; the client's QPS limit still paces them.
const movesAtOnce = 16

// move patches one live child to the rendered doc and starts its sync, guarded by the
// resourceVersion read: a conflict means the child changed meanwhile, and the next pass
// (its watch event) decides again.
func (a *Agent) move(ctx context.Context, live *v1alpha1.Application, doc []byte, marker string) error {
	var want v1alpha1.Application
	if err := json.Unmarshal(doc, &want); err != nil {
		return fmt.Errorf("move %s: decode its render: %w", live.Name, err)
	}
	patch, err := childop.MovePatch(live, &want, marker)
	if err != nil {
		return fmt.Errorf("move %s: %w", live.Name, err)
	}
	_, err = a.argo.ArgoprojV1alpha1().Applications(live.Namespace).Patch(ctx, live.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	switch {
	case apierrors.IsConflict(err):
		// Changed since the cache read it (often: our own move, not cached yet). Its watch
		// event brings the rollout back, and the next pass decides on what it is now.
		a.log.Debug("child changed before its move", "child", live.Name)
		return errMoved
	case err != nil:
		return fmt.Errorf("move %s: %w", live.Name, err)
	}
	return nil
}

// errMoved says a move was not made because the child changed meanwhile.
var errMoved = errors.New("child changed before its move")
