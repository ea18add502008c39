package render

import (
	"context"
	"fmt"
	"strings"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/jsoncost"
	"github.com/cmp-phase/cmp-phase/internal/render/tmpl"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

const (
	slotRollout  = "rollout"
	slotCluster  = "cluster"
	slotPhase    = "phase"
	slotRevision = "revision"
	slotSyncOpts = "syncOptions"
	slotNS       = "namespace"
	slotPosition = "position"
)

// Renderer renders children; it keeps compiled revisions across renders. Safe for
// concurrent use.
type Renderer struct {
	cache *lru.Cache[string, *compiledRev]
	// params are the compiled revisions that keep their parameters (and what their
	// children deploy) for an inventory, most recently used last: the parameters of
	// 10,000 clusters are ≈ 6 MiB a revision, and a revision no render uses any more
	// should not keep them as long as its compiled template stays cached.
	params *lru.Cache[*compiledRev, struct{}]
}

// New makes a renderer caching up to size compiled revisions, each with its parameters.
func New(size int) *Renderer {
	return NewBounded(size, size)
}

// NewBounded makes a renderer caching up to size compiled revisions, of which the
// paramSets most recently used keep their parameters; the others generate them again
// when next used.
func NewBounded(size, paramSets int) *Renderer {
	c, _ := lru.New[string, *compiledRev](max(size, 1))
	p, _ := lru.NewWithEvict[*compiledRev, struct{}](max(paramSets, 1), func(c *compiledRev, _ struct{}) { c.dropParams() })
	return &Renderer{cache: c, params: p}
}

type compiledRev struct {
	rev  *spec.Revision
	tmpl *tmpl.Template
	// pinEach: the revision pins children to a commit, but the template decides per child
	// (a templated repoURL or targetRevision, or a templatePatch), so each rendered child
	// is pinned; otherwise the compiled template already is.
	pinEach bool
	// parentKeysEach: a child's annotation keys may differ from the template's (a
	// templated key, a templatePatch), so each rendered child is checked for the parent's.
	parentKeysEach bool
	// usesPosition: the spec names the position parameters (position.go).
	usesPosition bool
	owner        *Renderer // whose params bound it counts in

	// The parameters of the last inventory seen, by child name: Generate is pure in
	// (revision, inventory), and serve reuses an inventory object until it changes.
	mu     sync.Mutex
	inv    *inventory.Inventory
	byName map[string]Params

	memo decisionMemo // Subjects and Changed answers for the last inventory seen (memo.go)

	// What the children deploy for the last inventory and source seen (Deploys).
	depsInv *inventory.Inventory
	depsKey string
	deps    *Deploys
}

// paramsFor returns the revision's parameter sets by child name for inv, and marks the
// revision as one that keeps them (outside c.mu: keeping one may drop another's).
func (c *compiledRev) paramsFor(ctx context.Context, inv *inventory.Inventory) (map[string]Params, error) {
	byName, err := c.lockedParams(ctx, inv)
	if err == nil && c.owner != nil {
		c.owner.params.Add(c, struct{}{})
	}
	return byName, err
}

// dropParams forgets the parameters and what the children deploy (both per inventory).
func (c *compiledRev) dropParams() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inv, c.byName = nil, nil
	c.deps, c.depsInv, c.depsKey = nil, nil, ""
}

func (c *compiledRev) lockedParams(ctx context.Context, inv *inventory.Inventory) (map[string]Params, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inv == inv && c.byName != nil {
		return c.byName, nil
	}
	params, err := Generate(ctx, c.rev, inv)
	if err != nil {
		return nil, err
	}
	byName, err := c.index(ctx, params)
	if err != nil {
		return nil, err
	}
	c.inv, c.byName = inv, byName
	return byName, nil
}

// maxRevisionCost bounds what decoding a revision's body may allocate (jsoncost.Cost). The
// state and the plan keep bodies raw, so a ConfigMap edit could hold one that costs
// gigabytes to decode; a spec the parser accepts (at most 200,000 YAML nodes) weighs at
// most ≈ 400 MiB, within it.
const maxRevisionCost = 4 * jsoncost.Limit

func (r *Renderer) compiled(id string, body []byte, rollout string) (*compiledRev, error) {
	// The same revision may come with another commit (or source) until the state records one.
	key := rollout + "/" + id + "@" + string(spec.ContentTail(body))
	if c, ok := r.cache.Get(key); ok {
		return c, nil
	}
	if err := jsoncost.Check(body, maxRevisionCost); err != nil { // a state's or plan's copy, decoded here
		return nil, fmt.Errorf("revision %s: %w (fix: restore the state or plan ConfigMap, or let the parent render it again)", id, err)
	}
	rev, err := spec.DecodeRevision(body)
	if err != nil {
		return nil, fmt.Errorf("revision %s: %w", id, err)
	}
	tree, err := spec.DecodeTree(rev.Template)
	if err != nil {
		return nil, fmt.Errorf("revision %s: %w", id, err)
	}
	parentKeysEach, err := refuseParentKeys(tree, rev.TemplatePatch)
	if err != nil {
		return nil, fmt.Errorf("revision %s: %w", id, err)
	}
	addSlots(tree, rev.PreserveResourcesOnDeletion)
	pinEach := false
	if rev.Content != nil {
		pinEach = pinTree(tree, rev.Content) || rev.TemplatePatch != ""
	}
	t, err := tmpl.Compile(tree, rev.TemplatePatch, tmpl.Options{GoTemplate: rev.GoTemplate, GoTemplateOptions: rev.GoTemplateOptions,
		KeptLabels:      []string{contract.LabelRollout, contract.LabelCluster, contract.LabelPhase},
		KeptAnnotations: []string{contract.AnnotationRevision, contract.AnnotationSyncOptions, contract.AnnotationUnselected, contract.AnnotationPosition}})
	if err != nil {
		return nil, fmt.Errorf("revision %s: %w", id, err)
	}
	c := &compiledRev{rev: rev, tmpl: t, pinEach: pinEach, parentKeysEach: parentKeysEach, usesPosition: usesPosition(body), owner: r}
	r.cache.Add(key, c)
	return c, nil
}

// addSlots adds what the ApplicationSet controller adds (the resources finalizer) and
// cmp-phase's own labels and annotations, filled per child.
func addSlots(tree map[string]any, preserve bool) {
	meta, _ := tree["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		tree["metadata"] = meta
	}
	tree["apiVersion"] = "argoproj.io/v1alpha1"
	tree["kind"] = "Application"
	// Like the ApplicationSet controller, children live in the spec's namespace, whatever
	// the template says (the apps-in-any-namespace boundary).
	meta["namespace"] = tmpl.Slot(slotNS)
	if f, _ := meta["finalizers"].([]any); len(f) == 0 && !preserve {
		meta["finalizers"] = []any{contract.FinalizerResources}
	}
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		meta["labels"] = labels
	}
	labels[contract.LabelRollout] = tmpl.Slot(slotRollout)
	labels[contract.LabelCluster] = tmpl.Slot(slotCluster)
	labels[contract.LabelPhase] = tmpl.Slot(slotPhase)
	ann, _ := meta["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
		meta["annotations"] = ann
	}
	ann[contract.AnnotationRevision] = tmpl.Slot(slotRevision)
	ann[contract.AnnotationSyncOptions] = tmpl.Slot(slotSyncOpts)
	ann[contract.AnnotationPosition] = tmpl.Slot(slotPosition)
	// only the render says a child is no step's (unselected): a template that did would
	// keep the agent from moving its children and from rebuilding a lost state with them
	delete(ann, contract.AnnotationUnselected)
}

// usesInventory reports whether the revision has a clusters generator.
func (c *compiledRev) usesInventory() bool {
	for _, g := range c.rev.Generators {
		if g.Clusters != nil {
			return true
		}
	}
	return false
}

// index maps each generated child's name to its parameters; two parameter sets yielding
// one name is an error, as it would be for Argo CD.
func (c *compiledRev) index(ctx context.Context, params []Params) (map[string]Params, error) {
	out := make(map[string]Params, len(params))
	for _, p := range params {
		name, err := c.tmpl.Name(ctx, p.Values)
		if err != nil {
			return nil, err
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("two parameter sets render the child name %q (fix: make template.metadata.name unique per cluster)", name)
		}
		if err := checkClusterLabel(name, p); err != nil {
			return nil, err
		}
		out[name] = p
	}
	return out, nil
}

// checkClusterLabel refuses a child whose cmp-phase.io/cluster label (its cluster's name,
// or its own name for a list element) is not a label value: an EKS ARN or a long GKE name
// would render, and the API server would refuse the child when it is applied. The agent
// selects a cluster's children by that label, so the value is the exact name or nothing:
// the render fails closed. The agent's inventory already leaves such a cluster out (with a
// Warning on every parent), so for clusters this is the backstop for an inventory written
// by hand or by an older agent; for list elements it is the check.
func checkClusterLabel(child string, p Params) error {
	v := p.clusterName(child)
	if contract.IsLabelValue(v) {
		return nil
	}
	const rule = "is not a Kubernetes label value (63 characters at most, letters, digits, '-', '_', '.', beginning and ending with a letter or digit)"
	if p.Cluster != nil {
		return fmt.Errorf("cluster %q: its name %s, and cmp-phase labels each child with it (%s) (fix: register the cluster under a shorter name in its Argo CD cluster Secret's \"name\")",
			v, rule, contract.LabelCluster)
	}
	fix := "make spec.template.metadata.name render at most 63 characters"
	if strings.Contains(v, "{{") {
		fix = "give every list element the parameters spec.template.metadata.name names"
	}
	return fmt.Errorf("child %q: its name %s, and cmp-phase labels a list element's child with it (%s) (fix: %s)",
		v, rule, contract.LabelCluster, fix)
}
