package rollout

// Event names: the rollout history's and the Kubernetes Events' reasons.
const (
	EvRolloutStarted   = "RolloutStarted"
	EvStateRebuilt     = "StateRebuilt" // the state ConfigMap was lost and rebuilt from the live children
	EvRolloutAbandoned = "RolloutAbandoned"
	EvRolloutCompleted = "RolloutCompleted"
	EvRolloutStopped   = "RolloutStopped"
	EvRollingBack      = "RollingBack"
	EvRolledBack       = "RolledBack"
	EvPhaseStarted     = "PhaseStarted"
	EvPhaseSoaking     = "PhaseSoaking"
	EvPhaseSucceeded   = "PhaseSucceeded"
	EvPhaseRollingBack = "PhaseRollingBack"
	EvPhaseRolledBack  = "PhaseRolledBack"
	EvClusterFailed    = "ClusterFailed"
	EvClusterJoined    = "ClusterJoined"
	EvClusterDeferred  = "ClusterDeferred"
	EvClusterRemoving  = "ClusterRemoving"
	EvClusterRemoved   = "ClusterRemoved"
	EvClusterReturned  = "ClusterReturned"
	// EvRemovalAwaitsConfirmation: a removal waits for a person (confirmRemoval).
	EvRemovalAwaitsConfirmation = "RemovalAwaitsConfirmation"
	EvHookStarted               = "HookStarted"
	EvHookSucceeded             = "HookSucceeded"
	EvHookFailed                = "HookFailed"
	EvRolloutAborted            = "RolloutAborted"
	EvRevisionPinned            = "RevisionPinned"
	EvNotPhased                 = "NotPhased"
	EvChildrenLeftOut           = "ChildrenLeftOut" // unselected children whose template cannot render
	EvManyHooks                 = "ManyHooks"       // a phase declares more than spec.ManyHooks hooks and checks

	// EvHookHeld: a hook asks for more than the agent's limits allow; it is not started.
	EvHookHeld = "HookHeld"
	// EvRolloutRemoved: every child went with the parent (deleted with the resources
	// finalizer); the state deploys nothing any more.
	EvRolloutRemoved = "RolloutRemoved"
)

// warnings are the events people must look at. EvClusterFailed is every member failure,
// tolerated (maxFailures, continue) or not.
var warnings = map[string]bool{EvRolloutStopped: true, EvRollingBack: true, EvClusterFailed: true, EvRolloutAbandoned: true, EvHookFailed: true, EvRolloutAborted: true, EvNotPhased: true, EvChildrenLeftOut: true, EvManyHooks: true, EvRemovalAwaitsConfirmation: true, EvHookHeld: true, EvShardHeld: true}
