package state

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Schema is the version of the state document this build reads and writes.
const Schema = 1

// State is the decoded rollout state.
type State struct {
	Schema     int   `json:"schema"`
	Generation int64 `json:"generation"`
	// ViewGeneration is the generation of the last change the renderer's output depends on:
	// the parent's PHASE_GEN must name at least this one (status-only writes do not move it).
	ViewGeneration int64                      `json:"viewGeneration,omitempty"`
	Revisions      map[string]json.RawMessage `json:"revisions,omitempty"` // id → spec.Revision JSON
	// Deployed is the revision every deployed child runs unless Pinned says otherwise.
	Deployed string `json:"deployed,omitempty"`
	// Children are the deployed children's keys (Application names), sorted.
	Children []string `json:"children,omitempty"`
	// Pinned maps a child to its revision where that differs from Deployed.
	Pinned map[string]string `json:"pinned,omitempty"`
	// Removing lists deployed children the agent decided to remove; only these may be
	// missing from a render.
	Removing []string `json:"removing,omitempty"`
	// Leaving are the other deployed children the agent decided to remove, after Removing
	// (latest phase first); like Removing, they may be missing from a render.
	Leaving []string `json:"leaving,omitempty"`
	// Confirmed are leaving children whose removal a person confirmed (confirmRemoval).
	Confirmed []string `json:"confirmed,omitempty"`
	// RemovedRevision is the deployed revision whose rollout a person removed
	// (confirm-remove-rollout, its spec gone from git): its children are removed, and once
	// none is left the render produces nothing. Cleared when the spec comes back.
	RemovedRevision string   `json:"removedRevision,omitempty"`
	Rollout         *Rollout `json:"rollout,omitempty"`
	// Paused holds every rollout (this one and the next) until resumed or Until passes.
	Paused *Pause `json:"paused,omitempty"`
	// Rejected are the control edits refused, key → what was wrong, so each is reported once
	// (and shown in the status key until fixed).
	Rejected map[string]string `json:"rejected,omitempty"`
	// WrittenAt is when the engine last decided a change (zero in states from before it):
	// a change of nothing but waiting clusters' reasons is written at most every
	// ReasonEvery after it.
	WrittenAt time.Time `json:"writtenAt,omitzero"`
	// AfterDelete is the ledger of post-delete hooks, by key (postdelete/name[/child]):
	// they run after children are gone, outside any phase. At most MaxAfterDelete entries;
	// the oldest ended ones go first.
	AfterDelete map[string]HookRun `json:"afterDelete,omitempty"`
	// RemovingClusters names the cluster of each child in Removing, read from the live
	// child when its removal started: a per-cluster post-delete hook runs for the cluster
	// once the child is gone.
	RemovingClusters map[string]string `json:"removingClusters,omitempty"`
	// Unselected are live children the state neither deploys nor admits (a RollingSync
	// spec's children no step selects, rendered for manual sync), sorted: the renderer
	// fails closed on one whose template stops rendering instead of leaving it out.
	Unselected []string `json:"unselected,omitempty"`
	// Placed are where earlier rollouts placed the children that still run their
	// revisions (KeepPlacements), oldest first: a child's position (Positions) stays what
	// its rollout made it until another rollout admits it.
	Placed []Placement `json:"placed,omitempty"`
}

// MaxAfterDelete bounds the post-delete ledger.
const MaxAfterDelete = 200

// Pause is a person's pause.
type Pause struct {
	Reason string     `json:"reason"`
	By     string     `json:"by,omitempty"`
	Since  time.Time  `json:"since"`
	Until  *time.Time `json:"until,omitempty"`
	// Fleet marks the pause of the fleet-wide stop (control.FleetStop): lifting the stop
	// ends it, and only it.
	Fleet bool `json:"fleet,omitempty"`
	// Check is the ledger key of the metric check whose Inconclusive outcome paused the
	// rollout (the engine's pause, not a person's): resume runs it again.
	Check string `json:"check,omitempty"`
}

// Rollout is the rollout in progress (or the last one, until the next starts).
type Rollout struct {
	Revision  string        `json:"revision"`
	Status    RolloutStatus `json:"status"`
	Reason    string        `json:"reason,omitempty"`
	Phase     int           `json:"phase"`
	Phases    []PhaseState  `json:"phases"`
	StartedAt time.Time     `json:"startedAt"`
	// EndedAt is when the rollout last reached a terminal status (zero while it runs, and
	// in states from before it was kept).
	EndedAt time.Time `json:"endedAt,omitzero"`
	// Deferred are late joiners kept out of this rollout (policy defer); a catch-up rollout
	// of the same revision takes them through the phases once this one completes.
	Deferred []string `json:"deferred,omitempty"`
	History  []Entry  `json:"history,omitempty"`
	// Skipped are children a person quarantined (the skip key): never admitted, and not
	// judged when already admitted.
	Skipped []string `json:"skipped,omitempty"`
	// Unphased are children that follow a moving ref the renderer cannot see (child →
	// repoURL@ref), as the plan named them when the rollout started: not phased.
	Unphased map[string]string `json:"unphased,omitempty"`
	// LeftOut are children no phase selects and nothing deploys whose template cannot
	// render (child → why), as the plan named them when the rollout started.
	LeftOut map[string]string `json:"leftOut,omitempty"`
	// MaxFailures is the rollout-wide failure budget (spec-level maxFailures) in children,
	// fixed when the rollout started (a percentage of its members then); nil: none.
	MaxFailures *int `json:"maxFailures,omitempty"`
	// Window is the change window holding the rollout now (nil when none does).
	Window *WindowHold `json:"window,omitempty"`
	// Tracks are the rollout's tracks once a phase with tracks split it (see Track); empty
	// without tracks, and in states from before them.
	Tracks []Track `json:"tracks,omitempty"`
}

// PhaseState is one phase of the rollout: its membership snapshot, who is admitted, and
// the deadlines it waits on (waiting is data, not sleep).
type PhaseState struct {
	Name      string                  `json:"name"`
	Status    PhaseStatus             `json:"status,omitempty"`
	Members   []string                `json:"members,omitempty"`
	Admitted  []string                `json:"admitted,omitempty"`
	StartedAt *time.Time              `json:"startedAt,omitempty"`
	SoakUntil *time.Time              `json:"soakUntil,omitempty"`
	Clusters  map[string]ClusterState `json:"clusters,omitempty"`
	// Returning are children a rollback took out of Admitted, until they have settled on
	// the revision they ran before.
	Returning  []string   `json:"returning,omitempty"`
	RollbackAt *time.Time `json:"rollbackAt,omitempty"`
	// DeadlineAt is the phase's progressDeadline, counted from its first admission: members
	// still waiting then are Errored.
	DeadlineAt *time.Time `json:"deadlineAt,omitempty"`
	// Hooks is the phase's hook ledger, by key (kind/name[/cluster]).
	Hooks map[string]HookRun `json:"hooks,omitempty"`
	// ApprovedBy is who opened the phase's manual gate (maxUpdate: 0), empty until then.
	ApprovedBy string `json:"approvedBy,omitempty"`
	// Approval is the phase's approval gate and the approvals recorded (nil: no gate, or a
	// state from before approvals were recorded).
	Approval *ApprovalGate `json:"approval,omitempty"`
	// EndedAt is when the phase last reached a terminal status (Succeeded, Failed, Errored,
	// RolledBack); zero while it is not over.
	EndedAt time.Time `json:"endedAt,omitzero"`
	// Override is the window a person's override-window lets the phase's next admission
	// through, once (cleared by that admission).
	Override string `json:"override,omitempty"`
	// Track is the track this copy of a phase is walked by; "" for a shared phase.
	Track string `json:"track,omitempty"`
	// FailedAt is when the phase failed (its onFailure applied, a hook or a person aborted
	// it, or its children did not return in time); zero while it has not. Its failure hooks
	// run once from then.
	FailedAt time.Time `json:"failedAt,omitzero"`
}

// ClusterState says where one admitted child is and why.
type ClusterState struct {
	Status     ClusterStatus `json:"status"`
	Reason     string        `json:"reason,omitempty"`
	AdmittedAt time.Time     `json:"admittedAt"`
	// SettledAt is when the child reached a settled status (Done, Failed, Errored, Skipped)
	// after it last waited; zero while it waits.
	SettledAt time.Time `json:"settledAt,omitzero"`
}

// Active reports whether the rollout still decides which children run its revision.
func (r *Rollout) Active() bool {
	return r != nil && r.Status != RolloutCompleted && r.Status != RolloutAbandoned
}

// RevisionOf says which revision a child runs and, when the active rollout admitted it,
// in which phase. ok is false for children never deployed and not admitted.
func (s *State) RevisionOf(child string) (rev, phase string, ok bool) {
	return s.Assignments()(child)
}

// Record appends a history entry, dropping the oldest beyond MaxHistory.
func (r *Rollout) Record(at time.Time, event, message string) {
	r.History = append(r.History, Entry{At: at, Event: event, Message: message})
	if n := len(r.History) - MaxHistory; n > 0 {
		r.History = slices.Delete(r.History, 0, n)
	}
}

// AdmittedPhases maps every child the rollout admitted to the phase that admitted it.
func (r *Rollout) AdmittedPhases() map[string]string {
	if r == nil {
		return map[string]string{}
	}
	n := 0
	for _, p := range r.Phases {
		n += len(p.Admitted)
	}
	out := make(map[string]string, n) // sized once: no growth over a fleet's admissions
	for _, p := range r.Phases {
		for _, c := range p.Admitted {
			if _, seen := out[c]; !seen {
				out[c] = p.Name
			}
		}
	}
	return out
}

// Assignments indexes the state once and returns RevisionOf's lookup, for renders that ask
// about every child.
func (s *State) Assignments() func(child string) (rev, phase string, ok bool) {
	admitted := map[string]string{}
	if s.Rollout.Active() {
		admitted = s.Rollout.AdmittedPhases()
	}
	return func(child string) (string, string, bool) {
		if phase, ok := admitted[child]; ok {
			return s.Rollout.Revision, phase, true
		}
		if _, found := slices.BinarySearch(s.Children, child); !found {
			return "", "", false
		}
		if r, pinned := s.Pinned[child]; pinned {
			return r, "", true
		}
		return s.Deployed, "", true
	}
}

// MaxGeneration is the largest generation a state may have: every write adds one, and
// int64 would wrap past its maximum to a negative generation every read refuses. 2^62
// leaves 2^62 writes after any PHASE_GEN a state is rebuilt from (at most 2^53).
const MaxGeneration = 1 << 62

// Validate checks the invariants the renderer relies on.
func (s *State) Validate() error {
	if s.Schema != Schema {
		return fmt.Errorf("schema %d, this cmp-phase reads %d (fix: upgrade cmp-phase, or let the agent rebuild the state)", s.Schema, Schema)
	}
	if s.Generation < 1 {
		return fmt.Errorf("generation %d must be positive", s.Generation)
	}
	if s.Generation > MaxGeneration {
		return fmt.Errorf("generation %d is over the limit of %d, past which the next write would wrap (fix: set the parent's plugin env PHASE_GEN to 0 and delete the state ConfigMap; the agent rebuilds it)", s.Generation, int64(MaxGeneration))
	}
	if !slices.IsSorted(s.Children) || len(slices.Compact(slices.Clone(s.Children))) != len(s.Children) {
		return fmt.Errorf("children must be sorted and unique")
	}
	if len(s.Children) > 0 {
		if _, ok := s.Revisions[s.Deployed]; !ok {
			return fmt.Errorf("deployed revision %q has no stored spec", s.Deployed)
		}
	}
	for child, rev := range s.Pinned {
		if _, ok := s.Revisions[rev]; !ok {
			return fmt.Errorf("pinned child %q runs revision %q, which has no stored spec", child, rev)
		}
	}
	if s.Rollout != nil {
		if err := s.validRollout(); err != nil {
			return err
		}
	}
	return s.validPlaced()
}

// validRollout checks the rollout's invariants: its revision has a stored spec, its phase
// is in range, its maxFailures is not negative, and its tracks are sound.
func (s *State) validRollout() error {
	if _, ok := s.Revisions[s.Rollout.Revision]; !ok {
		return fmt.Errorf("rollout revision %q has no stored spec", s.Rollout.Revision)
	}
	// A finished rollout's phase is one past its last.
	if s.Rollout.Phase < 0 || s.Rollout.Phase > len(s.Rollout.Phases) {
		return fmt.Errorf("rollout phase %d out of range", s.Rollout.Phase)
	}
	if m := s.Rollout.MaxFailures; m != nil && *m < 0 {
		return fmt.Errorf("rollout maxFailures %d is negative (fix: let the agent rebuild the state)", *m)
	}
	return s.Rollout.validTracks()
}
