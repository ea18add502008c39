package spec

import (
	"encoding/json"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Dialect says which seed the spec follows.
type Dialect string

// The dialects we accept verbatim.
const (
	DialectPhaseDeployment Dialect = "phaseDeployment"
	DialectRollingSync     Dialect = "RollingSync"
	DialectRollingUpdate   Dialect = "RollingUpdate"
	DialectAllAtOnce       Dialect = "AllAtOnce"
)

// NoDeadline is a progressDeadline written "none" (DeadlineNone): the phase's members wait
// as long as it takes, on purpose.
const (
	NoDeadline   time.Duration = -1
	DeadlineNone               = "none"
)

// Spec is a parsed, validated, normalised rollout spec.
type Spec struct {
	File      string
	Name      string
	Namespace string
	Dialect   Dialect

	Generators []Generator
	// Template is the ApplicationSet template, already decoded into an Argo CD Application
	// and re-encoded as JSON, so it holds exactly the fields Argo CD would render.
	Template      json.RawMessage
	TemplatePatch string
	// TemplateLines are the lines of the template's fields by path, so a render's error
	// points at its line (Locate).
	TemplateLines     map[string]int
	GoTemplate        bool
	GoTemplateOptions []string
	// PreserveResourcesOnDeletion mirrors spec.syncPolicy.preserveResourcesOnDeletion: when
	// false, children get the resources finalizer, as the ApplicationSet controller does.
	PreserveResourcesOnDeletion bool

	Phases []Phase
	// DeletionOrder is spec.strategy.deletionOrder (DeletionAllAtOnce by default, seed 003);
	// empty in the other dialects, whose removals go in reverse phase order
	// (RemovalOrder says which order applies).
	DeletionOrder string
	LateJoiners   string // LateJoinersDefer (default) or LateJoinersJoin
	// PinCommits (extension `pinCommits`, default true) makes the content children deploy
	// from the parent's repository part of the revision, and pins them to its commit.
	PinCommits bool
	// ConfirmRemoval (extension `confirmRemoval`, default false): no child is removed before
	// a person confirms it (control key confirm-removal).
	ConfirmRemoval bool
	// MaxFailures (extension, next to phases or in spec.strategy) is the rollout-wide failure
	// budget: failed children tolerated across every phase, a count or a percentage of the
	// rollout's members (Budget); SizeAll, the zero value: none.
	MaxFailures Size

	// OnFailure (extension `onFailure`, next to phases or in spec.strategy) are the
	// rollout's failure hooks: they run once per rollout and cause.
	OnFailure FailureHooks
	// PostDeleteHooks (extension `postDeleteHooks`, next to phases or in spec.strategy;
	// seed 002's PostDelete) run after children are gone, once Argo CD confirmed the
	// deletion: a per-cluster hook once for each child gone (a leaving cluster's, or every
	// child of a removed rollout), the others once when every child of the rollout is gone
	// (its parent deleted, or its spec removed).
	PostDeleteHooks []Hook

	// Notes say how a value written in another spelling was read (a failurePolicy of seed
	// 004's Abort is abort); `validate` prints them. Not problems.
	Notes Errors
	// Windows (extension `windows`, next to phases or in spec.strategy) are the rollout's
	// allow and deny windows: see Window.
	Windows []Window

	// sites are where each hook was read, for CheckLimits.
	sites []hookSite

	// The revision, computed once by Parse (see Revision).
	revision     *Revision
	revisionBody []byte
	revisionID   string
}

// Generator yields parameter sets. Exactly one of List and Clusters is set.
type Generator struct {
	List     *ListGenerator     `json:"list,omitempty"`
	Clusters *ClustersGenerator `json:"clusters,omitempty"`
}

// ListGenerator holds literal parameter sets.
type ListGenerator struct {
	Elements []map[string]any `json:"elements"`
}

// ClustersGenerator yields one parameter set per cluster of the inventory that matches.
type ClustersGenerator struct {
	Selector targets.Selector  `json:"selector"`
	Values   map[string]string `json:"values,omitempty"`
}

// Phase is one step of the rollout in either dialect. Its JSON form is the plan's (see
// phasejson.go): the renderer writes phases so, the agent reads them back and compiles them.
type Phase struct {
	Name    string           `json:"name"`
	Targets []targets.Target `json:"targets,omitempty"` // OR of targets; empty means every child
	// MatchAppLabels is true for RollingSync/RollingUpdate steps, whose matchExpressions
	// select by the generated Application's labels rather than the cluster's.
	MatchAppLabels bool          `json:"matchAppLabels,omitempty"`
	Size           Size          `json:"size"`
	PreHooks       []Hook        `json:"preHooks,omitempty"`
	PostHooks      []Hook        `json:"postHooks,omitempty"`
	Checks         []Hook        `json:"checks,omitempty"`
	WaitDuration   time.Duration `json:"-"`         // waitDuration, a Go duration string
	OnFailure      string        `json:"onFailure"` // stop | rollback | continue
	// FailureHooks (onFailure.hooks, seed 002's SyncFail) run once when the phase fails:
	// its onFailure action (stop or rollback) applies, or a person aborts it. They decide
	// nothing: the rollout stays where its failure put it, whatever they return.
	FailureHooks []Hook `json:"failureHooks,omitempty"`
	// ProgressDeadline (extension) bounds how long the phase's admitted members may take to
	// settle, from its first admission; 0 (unset) means the engine's default (10m from each
	// admission), NoDeadline ("none") no bound. A member still waiting then is Errored (we
	// could not tell in time) and counts as a failure.
	ProgressDeadline time.Duration `json:"-"` // progressDeadline, a Go duration string
	// MaxFailures (extension) is how many failed or errored members the phase tolerates
	// before onFailure applies; the tolerated ones stay on the new revision, reported.
	MaxFailures int `json:"maxFailures,omitempty"`
	// Ordering (extensions order and spread) lines the phase's members up for its batches;
	// zero: child-name order.
	Ordering targets.Ordering `json:"-"` // order and spread, flat
	// BatchWait (extension `batchWait` of a RollingSync/RollingUpdate step, seed 002's wave
	// delay) makes the step admit in waves: the next batch only once the last has settled
	// and been settled this long; 0: a member's slot opens as soon as it settles.
	BatchWait time.Duration `json:"-"` // batchWait, a Go duration string
	// BatchChecks (extension `batchChecks` of a step composed with a generator's phases)
	// runs the phase's own checks (not per cluster, not measured through the soak) between
	// its step's batches too: the next batch only once they passed on the last one.
	BatchChecks bool `json:"batchChecks,omitempty"`
	// Throttle (a spec.strategy step's maxUpdate composed with a generator's phases) bounds
	// how many of the phase's admitted members may be updating at once; SizeAll, the zero
	// value, does not throttle.
	Throttle Size `json:"throttle,omitzero"`
	// Approval (extension) is the phase's approval gate, nil for none (see ApprovalOf for
	// the gate maxUpdate: 0 makes).
	Approval *Approval `json:"approval,omitempty"`
	// Windows (extension `windows`) are the phase's own allow and deny windows; the
	// rollout's and the fleet's apply as well.
	Windows []Window `json:"windows,omitempty"`
	// Tracks (extension `tracks`) splits the rollout from this phase on into one track per
	// value (see Tracks); zero: no split here.
	Tracks Tracks `json:"-"` // tracks, the key's source
}

// FailureHooks are the rollout's hooks that run when it fails (seed 002's SyncFail): once
// per rollout and cause, with the ledger, limits, secrets and kinds of every other hook.
// Their outcome never changes the rollout's status or reason.
type FailureHooks struct {
	// Stop (stopHooks) run when the rollout stops: a phase failed under onFailure stop, a
	// hook aborted it, a person aborted it, or a rollback could not finish.
	Stop []Hook `json:"stopHooks,omitempty"`
	// Rollback (rollbackHooks) run when a rollback starts (onFailure rollback, or a person's).
	Rollback []Hook `json:"rollbackHooks,omitempty"`
	// RolledBack (rolledBackHooks) run when a rollback ends: every child is back.
	RolledBack []Hook `json:"rolledBackHooks,omitempty"`
}

// Late-joiner policies (extension `lateJoiners`): what happens to a cluster whose child
// would change but that was not a member of the running rollout when it started.
const (
	// LateJoinersDefer keeps it out of the running rollout; once that completes, a catch-up
	// rollout of the same revision takes it through the phases, gates and soaks included.
	LateJoinersDefer = "defer"
	// LateJoinersJoin makes it a member of the first phase that selects it and has not
	// started; when every such phase has started, it is deferred.
	LateJoinersJoin = "join"
)

// Deletion orders (spec.strategy.deletionOrder, seed 003): how children are removed.
const (
	// DeletionAllAtOnce removes every child that goes at once (seed 003's default).
	DeletionAllAtOnce = "AllAtOnce"
	// DeletionReverse removes them latest phase first, each group gone before the next.
	DeletionReverse = "Reverse"
)

// RemovalOrder is the deletion order that applies to a spec's (or a plan's) deletionOrder:
// as written in spec.strategy, else Reverse — phaseDeployment has no such field and cmp-phase
// always removed its children latest phase first.
func RemovalOrder(deletionOrder string) string {
	if deletionOrder == "" {
		return DeletionReverse
	}
	return deletionOrder
}

// SizeKind says how a phase's size bound is expressed.
type SizeKind int

// Size kinds.
const (
	SizeAll     SizeKind = iota // every member
	SizeCount                   // at most N
	SizePercent                 // percent of members, floored, at least 1 when > 0
)

// Size bounds how many members a phase admits (phaseDeployment: cumulatively) or updates at
// once (RollingSync: per batch).
type Size struct {
	Kind  SizeKind `json:"kind"`
	Value int      `json:"value,omitempty"`
	// Gate is true for maxUpdate: 0 in RollingSync: the step waits for a manual approval.
	Gate bool `json:"gate,omitempty"`
}

// Hook is a pre-hook, post-hook or check (seed 000), kept as declared; the hooks package
// runs them. It is written to the plan and read back by MarshalJSON and UnmarshalJSON.
type Hook struct {
	Name          string
	Type          string // the HookKind's name: http | command
	Timeout       time.Duration
	FailurePolicy string // fail | ignore | abort | retry (canonical: see failurepolicy.go)
	// RetryFor (retryFor, with failurePolicy: retry) is how long the hook is retried from
	// its run's start until it succeeds (0: DefaultRetryFor).
	RetryFor time.Duration
	// Block is the kind's own block (`http:`, `command:`), as the kind Type names read it.
	Block HookBlock
}
