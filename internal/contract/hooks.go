package contract

// What every hook run is told: seed 000's variables (command hooks) and headers (http
// hooks), plus cmp-phase's. Declared ones of the same name are overridden.
const (
	EnvAppSetName      = "APPSET_NAME"
	EnvAppSetNamespace = "APPSET_NAMESPACE"
	EnvHookName        = "HOOK_NAME"
	// EnvHookType is the hook's place, as seed 000 defines it: pre, post, or check.
	EnvHookType = "HOOK_TYPE"
	// EnvHookKind is the hook's `type:` in the spec (http, command, job): how it runs.
	EnvHookKind        = "HOOK_KIND"
	EnvPhaseName       = "PHASE_NAME"
	EnvRolloutRevision = "ROLLOUT_REVISION"
	EnvClusterName     = "CLUSTER_NAME"
	EnvIdempotencyKey  = "IDEMPOTENCY_KEY"

	HeaderAppSetName      = "X-AppSet-Name"
	HeaderAppSetNamespace = "X-AppSet-Namespace"
	HeaderHookName        = "X-Hook-Name"
	// HeaderHookType is the hook's place: pre, post, or check (EnvHookType).
	HeaderHookType = "X-Hook-Type"
	// HeaderHookKind is the hook's `type:` (EnvHookKind).
	HeaderHookKind      = "X-Hook-Kind"
	HeaderAppSetPhase   = "X-AppSet-Phase"
	HeaderAppSetCluster = "X-AppSet-Cluster"
	HeaderIdempotency   = "Idempotency-Key"
	HeaderUserAgent     = "User-Agent"
	HookUserAgentValue  = "ArgoCD-ApplicationSet-PhaseHook/1.0"
)

// AnnotationMinVersion, on a spec (the ApplicationSet in git), is the oldest cmp-phase
// that may render and run it (seed 000's "Version Compatibility").
const AnnotationMinVersion = "argocd.argoproj.io/min-version"
