package rollout

// The types of the engine's one door (Decide, Step): what it observes, what it decides.
// Types and constants only: nothing here calls anything.

import (
	"time"

	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// The statuses, typed in state, under the engine's short names.
const (
	StatusProgressing = state.RolloutProgressing
	StatusCompleted   = state.RolloutCompleted
	StatusStopped     = state.RolloutStopped
	StatusAbandoned   = state.RolloutAbandoned
	StatusRollingBack = state.RolloutRollingBack
	StatusRolledBack  = state.RolloutRolledBack

	PhasePending   = state.PhasePending
	PhaseAdmitting = state.PhaseAdmitting
	PhaseSoaking   = state.PhaseSoaking
	PhaseSucceeded = state.PhaseSucceeded
	PhaseFailed    = state.PhaseFailed
	PhaseErrored   = state.PhaseErrored
	PhaseReturning = state.PhaseRollingBack
	PhaseReturned  = state.PhaseRolledBack

	ClusterWaiting = state.ClusterWaiting
	ClusterDone    = state.ClusterDone
	ClusterFailed  = state.ClusterFailed
	ClusterErrored = state.ClusterErrored
)

// Observed is the world as the agent saw it on this pass: plain data (no functions), all
// computed before Decide.
type Observed struct {
	// Subjects are the children the plan's revision generates.
	Subjects []targets.Child
	// Changed says which children's rendered Application differs from what they run:
	// only those take part in a rollout.
	Changed map[string]bool
	// Children are the live child Applications.
	Children map[string]Observation
	// Hooks are the results of hook runs that ended since the ledger last saw them.
	Hooks map[string]HookResult
	// TrackHooks are those results for each track's current phase, by track (Hooks is the
	// shared phase's).
	TrackHooks map[string]map[string]HookResult
	// Controls are a person's edits of the ConfigMap (nil: none read).
	Controls *control.Controls
	// SpecGone: the parent's last render failed because the rollout's spec is gone from git
	// (contract.SpecRemovedMarker in its ComparisonError).
	SpecGone bool
	// SpecBack: the parent's last render succeeded (no ComparisonError): the positive
	// evidence a recorded removal needs to end. Neither SpecGone nor SpecBack (another
	// render error, the parent not seen) leaves a removal as it is.
	SpecBack bool
	// PlanFresh: the plan was rendered from a state at or after the last render-relevant
	// change (its state-generation annotation): a plan of a spec back in git after a removal.
	PlanFresh bool
	// FleetWindows are the fleet ConfigMap's change windows (compiled): over every rollout.
	FleetWindows []spec.Window
	// ProjectWindows are, by child, the sync windows of its AppProject that match it
	// (compiled, named appproject/<project>/<index>): a child they deny is not admitted.
	ProjectWindows map[string][]spec.Window
	// Limits are the agent's caps on what a hook may ask for (a hook over one is held, not
	// started: holdOverLimits) and on the hooks and checks running at once in a phase (0:
	// seed 000's 5 and 10). Zero fields are seed 000's.
	Limits spec.Limits
	// ShardHold names the shard of a sharded rollout that holds it ("shard 2/3: parent
	// \"fleet-2\" missing"): nothing moves until it is back (empty: none holds).
	ShardHold string
	// Dismantle: the parent was deleted with its children (nil: it was not); every child
	// goes, in the deletion order (Decide).
	Dismantle *Dismantle
	// ParentBusy: an operation of the parent is requested or running, or Argo CD has not
	// taken the deleted parent's delete yet (its resources finalizer is on); SubjectsMissing:
	// Subjects could not be made (no inventory yet, or the plan does not render). A
	// removal of children waits on either (dismantle).
	ParentBusy, SubjectsMissing bool
	// PhaseGen is the highest PHASE_GEN of the rollout's parents: with no state, a PHASE_GEN
	// or a live child proves a lost state, which Decide rebuilds after it.
	PhaseGen int64
	// ChangedIfRebuilt is Changed judged against the state Decide rebuilds when there is
	// none (Rebuilt: the agent makes the same state before Decide and asks the renderer),
	// Changed being against none; nil: Decide keeps Changed.
	ChangedIfRebuilt map[string]bool
	// Warmed is the state generation whose next admissions the agent has already looked at
	// for warming (0: none): Decide previews them (Decision.Warm, WarmState: a clone of the
	// state) only for a state of another generation, not on every pass over the same one.
	// NoWarm: the agent warms nothing of this rollout (no argocd-server API, say): Decide
	// never previews.
	Warmed int64
	NoWarm bool

	openings openings // the next openings this pass searched (Step makes it)
}

// Observation is what the agent read from one live child Application.
type Observation struct {
	Revision string // its cmp-phase.io/revision annotation
	// Unselected: it carries contract.AnnotationUnselected, the parent renders it with
	// automated sync off because no step selects it: no rollout's child (never rebuilt into
	// a state, never moved).
	Unselected          bool
	SpecCompared        bool      // status.sync.comparedTo equals its spec's source(s) and destination
	SyncStatus          string    // status.sync.status
	OperationPhase      string    // status.operationState.phase, "" when it never synced
	OperationFinishedAt time.Time // status.operationState.finishedAt
	OperationMessage    string
	ReconciledAt        time.Time // status.reconciledAt
	Health              string    // status.health.status
	// OperationPending: an operation is requested and not started yet.
	OperationPending bool
	// OperationStartedAt is status.operationState.startedAt (zero: the child never synced).
	OperationStartedAt time.Time
	// AutoSync: the child's own syncPolicy has automated sync on (it syncs itself);
	// Deleting: it is being deleted. The agent starts the sync of neither (Decision.Syncs).
	AutoSync, Deleting bool
	// OperationMarker is the admission marker (Marker) of the agent's sync in the last
	// operation, when that sync was the agent's and synced the spec the child has now.
	OperationMarker string
	// OperationAttempt is the number the agent gave its sync in the last operation among the
	// attempts of its admission (0: not the agent's retry: the first attempt).
	OperationAttempt int
	// ArgoCDRetries: the last operation carries a retry strategy (the child's own
	// syncPolicy.retry), so Argo CD retries a failed sync itself and its failure is final.
	ArgoCDRetries bool
	// Cluster is the cluster the child deploys to (its cmp-phase.io/cluster label).
	Cluster string
}

// HookResult is how a hook run the agent started ended, keyed like the ledger.
type HookResult struct {
	Status     state.HookStatus // Succeeded, Failed or Errored
	Attempts   int
	FinishedAt time.Time
	Duration   time.Duration
	Message    string
}

// Dismantle is what Observed says of a rollout whose children all go because its parent
// was deleted with Argo CD's resources finalizer (a cascading delete).
type Dismantle struct {
	// How says why every child goes, for the history and the Events ("with the parent web").
	How string
	// Hold is why nothing may be deleted yet (other shard parents still render their
	// children, and would apply them again): "" for none.
	Hold string
	// Removal: the rollout's spec is gone from git and a person confirmed it
	// (state.RemovedRevision); false: its parent was deleted. A removal is held by a pause
	// and the fleet-wide stop, and ends with the parent re-rendering (to nothing); a
	// deleted parent's ends with the parent released.
	Removal bool
}

// Decision is everything one pass of the agent decided, as data: the state to write and
// the I/O to do once it is written. The agent gathers the Observed, calls Decide, writes
// Next and carries the rest out; it decides nothing of its own.
type Decision struct {
	// Next is the state to write (cur itself: nothing to write; nil: nothing decided yet,
	// e.g. a sharded rollout whose shards are not all there before its first state).
	Next *state.State
	// Actions are Step's: Events, hook runs, consumed control keys, retried syncs, when to
	// come back.
	Actions []Action
	// Rebuilt: the state was missing while children exist, and Next was rebuilt from
	// their revision annotations (Rebuild) before the step.
	Rebuilt bool
	// Moves are the children Next moves to a revision their live Application does not
	// show yet (Moving), sorted by child: the agent applies them once the parent names
	// Next (the re-render protocol).
	Moves []Move
	// Syncs are the children whose sync the agent starts once the parent's render of Next
	// has arrived: admitted, waiting, and their live Application does not sync itself
	// (NeedsSync), in the order of Next's phases. The agent starts each only when no
	// operation is present (a person's or Argo CD's is never replaced).
	Syncs []Sync
	// Warm are the children the rollout admits next, in the order they will move, at most
	// WarmAhead; WarmState is the state that admits them, the one to render them with.
	// Both are named only for a generation of Next the agent has not warmed
	// (Observed.Warmed, NoWarm).
	Warm      []string
	WarmState *state.State
	// Delete are the live children to delete now, in the deletion order (a deleted
	// parent's, or a removed spec's: DeleteWhy says which); Release: every child is gone
	// and the state records it, so the deleted parent may go (its finalizer comes off).
	Delete    []string
	DeleteWhy string
	Release   bool
	// SetPhaseGen: point the parent's PHASE_GEN at Next now (a removed spec's children are
	// gone: the parent re-renders to nothing).
	SetPhaseGen bool
	// Dismantling: every child of the rollout goes (Delete, Release); the agent does only
	// that on this pass: no hooks, syncs or moves.
	Dismantling bool
}

// Move is a child the state moves to a revision that its live Application does not carry
// yet: admitted by the active rollout, or returning in its rollback.
type Move struct {
	Child    string
	Revision string
	// Since is when the state moved it (admission, or the phase's rollback): with the
	// revision, the Marker of the sync that enacts the move.
	Since time.Time
}

// Sync is a child whose sync the agent starts (like argocd app sync), and why.
type Sync struct {
	Child  string
	Reason string
}

// Verdict is where one admitted child stands.
type Verdict int

// Verdicts.
const (
	Waiting Verdict = iota // not yet: the reason says for what
	Done                   // synced the admitted spec and Healthy now (the soak is the engine's)
	Failed                 // a gate said no: the sync failed or the child is Degraded
	Errored                // we could not tell: the sync could not run at all
)

// FailureKind says whether a failed sync may succeed by itself when tried again.
type FailureKind int

// Failure kinds.
const (
	// Permanent: the sync failed for a reason that will not change by itself (an invalid
	// manifest, a webhook or admission denial, a forbidden resource, an immutable field) —
	// and every message no rule knows: a verdict is the safe side.
	Permanent FailureKind = iota
	// Transient: the cluster could not be reached or answered with a transient error.
	Transient
)
