package state

import "time"

// RolloutStatus is where a rollout stands.
type RolloutStatus string

// Rollout statuses.
const (
	RolloutProgressing RolloutStatus = "Progressing"
	RolloutCompleted   RolloutStatus = "Completed"   // its revision is the deployed one
	RolloutStopped     RolloutStatus = "Stopped"     // a phase failed or errored under onFailure: stop
	RolloutAbandoned   RolloutStatus = "Abandoned"   // a newer revision replaced it; nobody moved
	RolloutRollingBack RolloutStatus = "RollingBack" // returning admitted children, latest phase first
	RolloutRolledBack  RolloutStatus = "RolledBack"  // every admitted child runs what it ran before
)

// IsTerminal reports whether the rollout can no longer move by itself.
func (s RolloutStatus) IsTerminal() bool {
	switch s {
	case RolloutCompleted, RolloutStopped, RolloutAbandoned, RolloutRolledBack:
		return true
	}
	return false
}

// PhaseStatus is where one phase stands.
type PhaseStatus string

// Phase statuses. Failed means a gate said no (a sync failed, a child went Degraded);
// Errored means we could not tell (a sync could not run, or members did not settle within
// progressDeadline).
const (
	PhasePending     PhaseStatus = "Pending"
	PhaseAdmitting   PhaseStatus = "Admitting"
	PhaseSoaking     PhaseStatus = "Soaking"
	PhaseSucceeded   PhaseStatus = "Succeeded"
	PhaseFailed      PhaseStatus = "Failed"
	PhaseErrored     PhaseStatus = "Errored"
	PhaseRollingBack PhaseStatus = "RollingBack"
	PhaseRolledBack  PhaseStatus = "RolledBack"
)

// IsTerminal reports whether the phase is over.
func (s PhaseStatus) IsTerminal() bool {
	switch s {
	case PhaseSucceeded, PhaseFailed, PhaseErrored, PhaseRolledBack:
		return true
	}
	return false
}

// ClusterStatus is where one admitted child stands; ClusterState.Reason says why.
type ClusterStatus string

// Cluster statuses.
const (
	ClusterWaiting   ClusterStatus = "Waiting"   // admitted, not settled yet
	ClusterDone      ClusterStatus = "Done"      // synced the admitted spec and Healthy
	ClusterFailed    ClusterStatus = "Failed"    // a gate said no
	ClusterErrored   ClusterStatus = "Errored"   // we could not tell
	ClusterReturning ClusterStatus = "Returning" // a rollback is taking it back
	ClusterSkipped   ClusterStatus = "Skipped"   // a person quarantined it: not judged
)

// IsTerminal reports whether the child has settled one way or the other.
func (s ClusterStatus) IsTerminal() bool {
	return s == ClusterDone || s == ClusterFailed || s == ClusterErrored || s == ClusterSkipped
}

// Failure reports whether the status counts against a phase's maxFailures.
func (s ClusterStatus) Failure() bool { return s == ClusterFailed || s == ClusterErrored }

// Entry is one line of a rollout's history: what happened, when and why. Event is a
// constant, CamelCase name (it is also the Kubernetes Event reason).
type Entry struct {
	At      time.Time `json:"at"`
	Event   string    `json:"event"`
	Message string    `json:"message"`
}

// MaxHistory bounds a rollout's history; the oldest entries go first.
const MaxHistory = 100

// HookStatus is where one hook run stands in the ledger.
type HookStatus string

// Hook statuses. A hook whose success is recorded never runs again for its rollout, phase
// (and cluster).
const (
	HookRunning   HookStatus = "Running" // recorded before it starts
	HookSucceeded HookStatus = "Succeeded"
	HookFailed    HookStatus = "Failed"  // ran and said no
	HookErrored   HookStatus = "Errored" // could not run or could not tell
	// HookInconclusive: a metric check's measurements said neither yes nor no; the engine
	// pauses the rollout (Pause.Check) and a resume runs the check again from scratch.
	HookInconclusive HookStatus = "Inconclusive"
)

// HookRun is the ledger entry of one pre-hook, check (per cluster, when templated per
// cluster) or post-hook in one phase: written before it starts and when it ends.
type HookRun struct {
	Kind       string        `json:"kind"` // pre | check | post
	Name       string        `json:"name"`
	Cluster    string        `json:"cluster,omitempty"`
	Status     HookStatus    `json:"status"`
	Attempts   int           `json:"attempts,omitempty"`
	StartedAt  time.Time     `json:"startedAt"`
	FinishedAt *time.Time    `json:"finishedAt,omitempty"`
	Duration   time.Duration `json:"duration,omitempty"`
	Message    string        `json:"message,omitempty"` // truncated and redacted by the runner
}
