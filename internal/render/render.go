package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/shard"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	_ "github.com/cmp-phase/cmp-phase/internal/spec/appset" // the template check of every spec the renderer's callers parse
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// ErrStale means the state is older than the generation the parent asks for; the caller may
// wait for its informer and try again.
var ErrStale = errors.New("state is older than " + contract.EnvPhaseGen)

// Env is what the render reads from the plugin's environment.
type Env struct {
	// PhaseGen is ARGOCD_ENV_PHASE_GEN: the state generation the parent was told to render
	// (0 when unset: the first deployment).
	PhaseGen int64
	// StateNamespace is where the plan ConfigMap goes (the agent's namespace).
	StateNamespace string
	// SyncOptions is the sync-options annotation every child gets.
	SyncOptions string
	// AppName is ARGOCD_APP_NAME, the parent Application.
	AppName string
	// AppNamespace is ARGOCD_APP_NAMESPACE, the parent's destination namespace: where
	// children go when the spec names no namespace.
	AppNamespace string
	// Shard is ARGOCD_ENV_SHARD: the part of the children this parent renders (zero: all).
	Shard shard.Shard
	// Source is the parent's repository and the commit rendered (ARGOCD_APP_SOURCE_*,
	// ARGOCD_APP_REVISION).
	Source Source
}

func childNamespace(in Input) string {
	switch {
	case in.Spec.Namespace != "":
		return in.Spec.Namespace
	case in.Env.AppNamespace != "":
		return in.Env.AppNamespace
	default:
		return contract.DefaultNamespace
	}
}

// syncOptions is the sync-options annotation children get.
func syncOptions(env Env) string {
	if env.SyncOptions == "" {
		return contract.DefaultSyncOptions
	}
	return env.SyncOptions
}

// Input is everything one render depends on.
type Input struct {
	Spec      *spec.Spec
	Inventory *inventory.Inventory
	State     *state.State // nil when there is none yet
	Env       Env
	// Content is what the children deploy from the parent's repository (spec.pinCommits):
	// part of the revision, and the commit they are pinned to. nil: the spec alone.
	Content *spec.Content
	// Unphased are children that follow a moving ref the plugin cannot see (Deploys), for
	// the plan: the agent warns about them.
	Unphased map[string]string
	// Ctx ends the render early: every template execution checks it (nil: none; each
	// execution is held to its own bounds regardless, tmpl.Bounds).
	Ctx context.Context

	pos func(child, rev string) (state.Position, bool) // State's positions, once per render
}

// MaxChild and MaxOutput bound what a render writes: a child larger than Kubernetes
// stores in one object (etcd's 1.5 MiB request limit) could never be applied, and Argo CD's
// repo-server takes at most 200 MiB from a plugin by default (ARGOCD_GRPC_MAX_SIZE_MB).
const (
	MaxChild  = 3 << 19
	MaxOutput = 200 << 20
)

// sized refuses a child, or a render so far, past MaxChild or MaxOutput.
func sized(key string, child, total int) error {
	if child > MaxChild {
		return fmt.Errorf("child %s renders %d bytes, more than the %d Kubernetes stores in one object (fix: make its template smaller)", key, child, MaxChild)
	}
	if total > MaxOutput {
		return fmt.Errorf("the children render more than %d bytes, more than Argo CD's repo-server takes from a plugin (fix: shard the rollout, docs/sharding.md)", MaxOutput)
	}
	return nil
}

// ctx is the render's context.
func (in Input) ctx() context.Context {
	if in.Ctx == nil {
		return context.Background()
	}
	return in.Ctx
}

// Render returns the plan ConfigMap and the children sorted by name, each one JSON document
// (valid YAML). It returns documents only when the whole render succeeds.
func (r *Renderer) Render(in Input) ([][]byte, error) {
	docs, _, err := r.render(in)
	return docs, err
}

// render is Render, also returning the unselected children it left out (unselected.go).
func (r *Renderer) render(in Input) ([][]byte, map[string]string, error) {
	in.pos = in.positions() // the whole rollout's: a shard's state holds only its own children
	in.State = shardState(in.State, in.Env.Shard)
	body, id, err := revisionOf(in)
	if err != nil {
		return nil, nil, err
	}
	if err := checkState(in); err != nil {
		return nil, nil, err
	}
	var kids [][]byte
	var leftOut map[string]string
	if in.State != nil {
		if kids, leftOut, err = r.children(in, body, id); err != nil {
			return nil, nil, err
		}
	}
	plan, err := planDoc(in, body, id, leftOut)
	if err != nil {
		return nil, nil, err
	}
	return append([][]byte{plan}, kids...), leftOut, nil
}

// WriteStream writes documents as a YAML stream.
func WriteStream(w io.Writer, docs [][]byte) error {
	for _, d := range docs {
		if _, err := fmt.Fprintf(w, "---\n%s\n", d); err != nil {
			return fmt.Errorf("write manifests: %w", err)
		}
	}
	return nil
}

// revisionOf is the revision the input renders: the spec's, with the content the children
// deploy when given. The state's copy of the same revision wins: it holds the commit the
// children were pinned to when it started, so a later commit that changes nothing they
// deploy moves nobody.
func revisionOf(in Input) ([]byte, string, error) {
	_, body, id, err := in.Spec.Revision()
	if err != nil || in.Content == nil {
		return body, id, err
	}
	if body, id, err = spec.WithContent(body, *in.Content); err != nil {
		return nil, "", err
	}
	if in.State != nil {
		if stored, ok := in.State.Revisions[id]; ok {
			return stored, id, nil
		}
	}
	return body, id, nil
}

func checkState(in Input) error {
	if in.Inventory == nil {
		return fmt.Errorf("no cluster inventory (fix: start the agent, which publishes it, or pass --inventory-file)")
	}
	switch {
	case in.State == nil && in.Env.PhaseGen > 0:
		return fmt.Errorf("%w: %s is %d but there is no state ConfigMap (the agent rebuilds it from the live children; retry after it does)", ErrStale, contract.EnvPhaseGen, in.Env.PhaseGen)
	case in.State != nil && in.State.Generation < in.Env.PhaseGen:
		return fmt.Errorf("%w: state generation %d < %s %d", ErrStale, in.State.Generation, contract.EnvPhaseGen, in.Env.PhaseGen)
	}
	return nil
}

// children renders every deployed or admitted child at the revision it runs, then the
// unselected ones (unselected.go), each sorted by name; leftOut are the unselected children
// whose template cannot render, with the reason.
func (r *Renderer) children(in Input, body []byte, id string) (docs [][]byte, leftOut map[string]string, err error) {
	var own func(string) bool
	if in.Env.Shard.Sharded() {
		own = in.Env.Shard.Owns
	}
	children := assignedChildren(in.State, own)
	rendered, err := r.renderAssigned(in, children, body, id)
	if err != nil {
		return nil, nil, err
	}
	deployed := make(map[string]bool, len(children))
	for _, c := range children {
		deployed[c.key] = true
		if b, ok := rendered[c.key]; ok {
			docs = append(docs, b)
		}
	}
	manual, keys, leftOut, err := r.unselected(in, body, id, func(k string) bool { return deployed[k] })
	if err != nil {
		return nil, nil, err
	}
	for _, k := range keys {
		docs = append(docs, manual[k])
	}
	return docs, leftOut, nil
}

// Children renders the named children at the revision the state assigns each, byte for
// byte as Render renders them: what the agent applies the moment the state admits them.
// Every revision must be stored in the state.
func (r *Renderer) Children(in Input, keys []string) (map[string][]byte, error) {
	if err := checkState(in); err != nil {
		return nil, err
	}
	if in.State == nil {
		return nil, fmt.Errorf("render children: no state")
	}
	revisionOf := in.State.Assignments()
	in.pos = in.positions()
	children := make([]assigned, 0, len(keys))
	for _, k := range keys {
		rev, phase, _ := revisionOf(k)
		children = append(children, assigned{key: k, rev: rev, phase: phase})
	}
	return r.renderAssigned(in, children, nil, "")
}

// renderAssigned renders children, each at the revision the state assigns it (body is
// revision id's spec when the state does not store it yet).
func (r *Renderer) renderAssigned(in Input, children []assigned, body []byte, id string) (map[string][]byte, error) {
	rendered := make(map[string][]byte, len(children))
	for _, group := range byRevision(children) {
		rev := group[0].rev
		if err := r.renderRevision(rendered, in, rev, revisionBody(in.State, rev, id, body), group); err != nil {
			return nil, err
		}
	}
	return rendered, nil
}

func revisionBody(st *state.State, rev, id string, body []byte) []byte {
	if stored, ok := st.Revisions[rev]; ok || rev != id {
		return stored
	}
	return body
}

// renderRevision renders the children in keys with revision rev into rendered.
func (r *Renderer) renderRevision(rendered map[string][]byte, in Input, rev string, body []byte, children []assigned) error {
	if body == nil {
		return fmt.Errorf("state names revision %q but stores no spec for it (fix: let the agent rebuild the state)", rev)
	}
	c, err := r.compiled(rev, body, in.Spec.Name)
	if err != nil {
		return err
	}
	if len(in.Inventory.Clusters) == 0 && c.usesInventory() {
		return fmt.Errorf("the cluster inventory is empty but the state deploys %d children (fix: check the agent publishes the inventory)", len(children))
	}
	byName, err := c.paramsFor(in.ctx(), in.Inventory)
	if err != nil {
		return fmt.Errorf("revision %s: %w", rev, err)
	}
	syncOpts := syncOptions(in.Env)
	var missing []string
	positionOf := in.positions()
	slots := map[string]string{slotRollout: in.Spec.Name, slotRevision: rev, slotSyncOpts: syncOpts, slotNS: childNamespace(in)}
	// One buffer for every child of the revision: children are sub-slices of it.
	var arena bytes.Buffer
	for i, child := range children {
		k := child.key
		p, ok := byName[k]
		if !ok {
			if !removalRecorded(in.State, k) {
				missing = append(missing, k)
			}
			continue
		}
		slots[slotCluster], slots[slotPhase] = p.clusterName(k), child.phase
		pos, placed := positionOf(k, rev)
		slots[slotPosition] = positionAnnotation(pos, placed)
		start := arena.Len()
		if err := c.tmpl.Render(in.ctx(), &arena, c.values(p, pos), slots); err != nil {
			return childError{k, fmt.Errorf("render %s at revision %s: %w", k, rev, err)}
		}
		if arena.Len()-start > MaxChild {
			return childError{k, sized(k, arena.Len()-start, 0)}
		}
		if err := sized(k, 0, arena.Len()); err != nil {
			return err
		}
		if i == 0 {
			arena.Grow((arena.Len() + 64) * len(children))
		}
		end := arena.Len()
		if rendered[k], err = c.finish(k, rev, arena.Bytes()[start:end:end]); err != nil {
			return err
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("state deploys %d children that revision %s no longer generates (%s) and no removal is recorded (fix: restore the clusters in the inventory, or let the agent record their removal)", len(missing), rev, strings.Join(head(missing, 5), ", "))
	}
	return nil
}

// removalRecorded reports whether the state records child k's removal: k is being removed,
// or leaving.
func removalRecorded(st *state.State, k string) bool {
	return slices.Contains(st.Removing, k) || slices.Contains(st.Leaving, k)
}

// finish is a child's rendered document pinned to its commit (when the template decides
// per child) and checked: its labels, the parent's keys. A failure is the child's own.
func (c *compiledRev) finish(k, rev string, doc []byte) ([]byte, error) {
	var err error
	if c.pinEach {
		if doc, err = pin(doc, c.rev.Content); err != nil {
			return nil, childError{k, fmt.Errorf("render %s at revision %s: %w", k, rev, err)}
		}
	}
	if err := checkLabels(k, doc); err != nil {
		return nil, childError{k, fmt.Errorf("render at revision %s: %w", rev, err)}
	}
	if c.parentKeysEach {
		if err := checkParentKeys(k, doc); err != nil {
			return nil, childError{k, fmt.Errorf("render at revision %s: %w", rev, err)}
		}
	}
	return doc, nil
}

// childError is a render failure of one child's own (its template, size, labels), not of
// the revision or the render as a whole: only such a failure may leave an unselected child
// out (unselected.go); every other fails the render.
type childError struct {
	key string
	err error
}

func (e childError) Error() string { return e.err.Error() }
func (e childError) Unwrap() error { return e.err }

func head(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
}

func (p Params) clusterName(child string) string {
	if p.Cluster != nil {
		return p.Cluster.Name
	}
	return child
}
