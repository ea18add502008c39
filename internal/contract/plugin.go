package contract

// The plugin as parents and Argo CD see it.
const (
	// PluginName is the <name>-<version> a parent Application names in
	// spec.source.plugin.name, and the stem of the plugin's socket.
	PluginName = "cmp-phase-v1"
	// DefaultNamespace is where the agent, the plugin and the CLI look for Applications,
	// cluster Secrets and cmp-phase ConfigMaps unless told otherwise: Argo CD's.
	DefaultNamespace = "argocd"
	// PreviewMarker is the file that, in an app directory sent by
	// `argocd app diff --local <dir> --server-side-generate`, asks for a render of the next
	// phase as if admitted. A YAML name, so the CLI's default --local-include sends it.
	PreviewMarker = "cmp-phase-preview.yaml"
	// RevisionStreamed is Argo CD's ARGOCD_APP_REVISION for files sent from a person's
	// machine (argocd app diff --local): not a commit.
	RevisionStreamed = "streamed"
)

// The parent's plugin env. A person or the agent sets NAME on the parent
// (spec.source.plugin.env); Argo CD passes it to the plugin as ARGOCD_ENV_NAME.
const (
	// EnvPrefix is what Argo CD puts before the name of a parent's plugin env entry.
	EnvPrefix = "ARGOCD_ENV_"
	// EnvPhaseGen carries the state generation the parent renders: the agent sets it after
	// each state write, which changes the repo-server's manifest cache key.
	EnvPhaseGen = "PHASE_GEN"
	// EnvSyncOptions overrides DefaultSyncOptions on every child.
	EnvSyncOptions = "SYNC_OPTIONS"
	// PluginEnvPhaseGen is EnvPhaseGen as the plugin reads it.
	PluginEnvPhaseGen = EnvPrefix + EnvPhaseGen
	// PluginEnvSyncOptions is EnvSyncOptions as the plugin reads it.
	PluginEnvSyncOptions = EnvPrefix + EnvSyncOptions
)

// The build environment Argo CD gives the plugin.
const (
	// EnvPluginSocketDir is the directory the repo-server dials plugins in, as Argo CD tells
	// the sidecar.
	EnvPluginSocketDir = "ARGOCD_PLUGINSOCKFILEPATH"
	// DefaultPluginSocketDir is that directory in the stock repo-server pod.
	DefaultPluginSocketDir = "/home/argocd/cmp-server/plugins"
	// EnvAppName is the parent Application's name.
	EnvAppName = "ARGOCD_APP_NAME"
	// EnvAppNamespace is the parent's destination namespace.
	EnvAppNamespace = "ARGOCD_APP_NAMESPACE"
	// EnvAppRevision is the commit rendered (RevisionStreamed for local files).
	EnvAppRevision = "ARGOCD_APP_REVISION"
	// EnvAppSourcePath is the parent's source path inside its repository.
	EnvAppSourcePath = "ARGOCD_APP_SOURCE_PATH"
	// EnvAppSourceRepoURL is the parent's repository.
	EnvAppSourceRepoURL = "ARGOCD_APP_SOURCE_REPO_URL"
	// EnvAppSourceTargetRevision is the parent's targetRevision.
	EnvAppSourceTargetRevision = "ARGOCD_APP_SOURCE_TARGET_REVISION"
)

// EnvStateNamespace is the plugin container's env that sets the default of
// --state-namespace (where the state, inventory and plan ConfigMaps are).
const EnvStateNamespace = "CMP_PHASE_STATE_NAMESPACE"
