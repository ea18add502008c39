package contract

// Labels cmp-phase puts on what it renders and writes. The agent and the CLI select by them.
const (
	// LabelRollout names the rollout of a child Application or a plan ConfigMap.
	LabelRollout = "cmp-phase.io/rollout"
	// LabelCluster names the cluster a child Application deploys to.
	LabelCluster = "cmp-phase.io/cluster"
	// LabelPhase names the phase that admitted a child while a rollout runs, else empty.
	LabelPhase = "cmp-phase.io/phase"
	// LabelPlan marks plan ConfigMaps (with MarkerValue); the agent watches them by it.
	LabelPlan = "cmp-phase.io/plan"
	// LabelState marks state ConfigMaps (with MarkerValue); the agent watches them by it.
	LabelState = "cmp-phase.io/state"
	// MarkerValue is the value of the marker labels LabelPlan and LabelState.
	MarkerValue = "true"
)

// Label selectors over the labels above.
const (
	// PlanSelector selects plan ConfigMaps.
	PlanSelector = LabelPlan + "=" + MarkerValue
	// StateSelector selects state ConfigMaps.
	StateSelector = LabelState + "=" + MarkerValue
)

// RolloutSelector selects a rollout's children and plan.
func RolloutSelector(rollout string) string { return LabelRollout + "=" + rollout }

// Annotations cmp-phase puts on what it renders.
const (
	// AnnotationRevision is the revision a child Application runs.
	AnnotationRevision = "cmp-phase.io/revision"
	// AnnotationGeneration, on the plan, is the state generation the render saw: the agent
	// confirms a re-render against it.
	AnnotationGeneration = "cmp-phase.io/state-generation"
	// AnnotationParent, on the plan, names the parent Application that rendered it (the
	// agent bumps its PHASE_GEN).
	AnnotationParent = "cmp-phase.io/parent"
	// AnnotationUnselected, on a child of a RollingSync or RollingUpdate spec that no step
	// selects, says why it is rendered with automated sync off (seed 003: "excluded from the
	// rolling sync and must be synced manually").
	AnnotationUnselected = "cmp-phase.io/unselected"
	// AnnotationPosition, on a child, is its place in the rollout that admitted it at the
	// revision it runs: phase=<name>,index=<1-based>,count=<phases>,rank=<1-based in its
	// phase>; empty when not known.
	AnnotationPosition = "cmp-phase.io/position"
)

// UnselectedReason is AnnotationUnselected's value.
const UnselectedReason = "no step of the spec selects it: rendered with automated sync off, sync it by hand"

// Argo CD's names on Applications and cluster Secrets that cmp-phase reads or writes.
const (
	// AnnotationSyncOptions is Argo CD's sync-options annotation every child carries.
	AnnotationSyncOptions = "argocd.argoproj.io/sync-options"
	// DefaultSyncOptions is its value unless the parent's plugin env SYNC_OPTIONS says
	// otherwise: Argo CD never prunes or deletes what a child deployed.
	DefaultSyncOptions = "Prune=false,Delete=false"
	// PlanSyncOptions are the plan ConfigMap's: never pruned or deleted, and applied
	// server-side without kubectl's validation — the renderer made it, and each of Argo
	// CD's client-side applies fetches and parses the API server's OpenAPI documents, which
	// cost the parent's sync of every phase more CPU than the rest of it on a small stack.
	PlanSyncOptions = DefaultSyncOptions + ",Validate=false,ServerSideApply=true"
	// AnnotationGeneratePaths is Argo CD's annotation naming the paths an Application's
	// manifests depend on beyond its source path.
	AnnotationGeneratePaths = "argocd.argoproj.io/manifest-generate-paths"
	// FinalizerResources is what the ApplicationSet controller adds to children whose
	// template has no finalizers, unless syncPolicy.preserveResourcesOnDeletion is set.
	FinalizerResources = "resources-finalizer.argocd.argoproj.io"
	// FinalizerResourcesBackground and FinalizerResourcesForeground are the other forms of
	// Argo CD's resources finalizer (the propagation policy of the cascading delete).
	FinalizerResourcesBackground = FinalizerResources + "/background"
	FinalizerResourcesForeground = FinalizerResources + "/foreground"
	// LabelSecretType is Argo CD's label that says what a Secret holds.
	LabelSecretType = "argocd.argoproj.io/secret-type"
	// SecretTypeCluster is its value on a cluster Secret.
	SecretTypeCluster = "cluster"
	// ClusterSecretSelector selects Argo CD's cluster Secrets.
	ClusterSecretSelector = LabelSecretType + "=" + SecretTypeCluster
)

// Argo CD's own bookkeeping annotations, which the inventory never exposes (like the
// ApplicationSet cluster generator).
const (
	AnnotationRefresh        = "argocd.argoproj.io/refresh"
	AnnotationHydrate        = "argocd.argoproj.io/hydrate"
	AnnotationInstance       = "argocd.argoproj.io/instance"
	AnnotationInstallationID = "argocd.argoproj.io/installation-id"
)

// OperationInfoAdmission names the operation info entry that carries the agent's admission
// marker (rollout.Marker) in the syncs it starts for children it moved: that sync is known
// as the one for the admission, across restarts and leaders.
const OperationInfoAdmission = "cmp-phase.io/admission"

// OperationInfoAttempt names the operation info entry that numbers the agent's sync among
// the attempts of one admission (2 and up: retries of a sync that failed on a transient
// error; absent: the first attempt).
const OperationInfoAttempt = "cmp-phase.io/attempt"

// SpecRemovedMarker starts the render's error when the spec of a rollout that deploys
// children is gone from git: the agent finds it in the parent's ComparisonError, the proof
// that a confirm-remove-rollout edit may act.
const SpecRemovedMarker = "spec removed from git"

// FinalizerChildren is the agent's finalizer on a parent that carries Argo CD's resources
// finalizer: deleting that parent removes its children (in the plan's deletion order)
// before the parent goes. Argo CD's own finalizer skips the children (Delete=false).
const FinalizerChildren = "cmp-phase.io/children"

// AnnotationTeardown marks a parent being deleted whose delete the agent saw cascade (Argo
// CD's resources finalizer still on it when its deletion began): its children are removed
// in the deletion order, across agent restarts.
const AnnotationTeardown = "cmp-phase.io/teardown"

// IsResourcesFinalizer reports whether f is Argo CD's resources finalizer in any of its
// forms: the parent's delete cascades to what it deployed.
func IsResourcesFinalizer(f string) bool {
	return f == FinalizerResources || f == FinalizerResourcesBackground || f == FinalizerResourcesForeground
}
