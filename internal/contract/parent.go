package contract

// The rollout's state on its parent Application: annotations the agent writes (a merge
// patch, only when one changes) so argocd-notifications triggers, `kubectl wait
// --for=jsonpath=…` and dashboards can read where a rollout stands without the state
// ConfigMap. A git-managed parent needs them in ignoreDifferences, as PHASE_GEN.
const (
	// ParentRollout names the rollout (the spec's metadata.name: what cmp-phase's commands
	// take), which may differ from the parent's name.
	ParentRollout = "cmp-phase.io/rollout"
	// ParentStatus is the rollout's status: Idle, Progressing, Completed, Stopped,
	// RollingBack, RolledBack or Abandoned.
	ParentStatus = "cmp-phase.io/status"
	// ParentPhase is the current (or last) phase's name ("" when idle).
	ParentPhase = "cmp-phase.io/phase"
	// ParentAdmitted is the current phase's admitted members of its members, "n/m".
	ParentAdmitted = "cmp-phase.io/admitted"
	// ParentWaitingFor is what a running rollout waits for: approval, window, soak, check,
	// person (paused), sync (members not settled yet); "" when it waits for nothing.
	ParentWaitingFor = "cmp-phase.io/waiting-for"
	// ParentPhaseSucceeded is the latest phase of the rollout that succeeded ("" when none).
	ParentPhaseSucceeded = "cmp-phase.io/phase-succeeded"
	// ParentRolloutRevision is the revision the current (or last) rollout rolls out.
	ParentRolloutRevision = "cmp-phase.io/rollout-revision"
	// ParentRolloutID names one rollout: its revision and when it started (RFC 3339), so a
	// notification's oncePer sends one message per rollout (and phase).
	ParentRolloutID = "cmp-phase.io/rollout-id"
	// ParentPaused is when the pause holding a running rollout began (RFC 3339: a person's
	// pause, the fleet-wide stop or an inconclusive check's); "" when none holds it. Each
	// pause has its own value, so a notification's oncePer sends one message per pause.
	ParentPaused = "cmp-phase.io/paused"
	// ParentCheckFailed names a check of the current phase whose run failed or errored
	// ("error-rate", or "error-rate on prod-2" for a per-cluster check); "" when none did.
	ParentCheckFailed = "cmp-phase.io/check-failed"
)

// ParentAnnotationKeys are every key of the rollout's state on its parent.
var ParentAnnotationKeys = []string{ParentStatus, ParentRollout, ParentPhase, ParentAdmitted, ParentWaitingFor, ParentPhaseSucceeded, ParentRolloutRevision, ParentRolloutID, ParentPaused, ParentCheckFailed}
