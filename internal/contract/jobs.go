package contract

// What the agent puts on the Kubernetes Jobs of `type: job` hooks, so that a restarted or
// new leader finds a Job it started (by name, then these) and a person can select them.
const (
	// LabelJobRollout names the rollout a hook Job belongs to (the same key as a child's).
	LabelJobRollout = LabelRollout
	// LabelJobHook names the hook (as a label value: at most 63 characters, DNS-safe).
	LabelJobHook = "cmp-phase.io/hook"
	// LabelJobPlace is the hook's place in its phase: pre, check or post (EnvHookType).
	LabelJobPlace = "cmp-phase.io/hook-place"
	// AnnotationJobKey is the run's idempotency key (rollout/revision/phase/ledger key).
	AnnotationJobKey = "cmp-phase.io/idempotency-key"
	// AnnotationJobRun says which run of that key created the Job: when the ledger started
	// it (Unix nanoseconds) and the attempt, "<started>/<attempt>".
	AnnotationJobRun = "cmp-phase.io/hook-run"
	// LabelHookSecret, "true" on a Secret, lets a job hook's pod reference it (env,
	// envFrom, volumes, projected sources, image pull secrets); a hook referencing any other
	// Secret is Errored before its Job is created, so Argo CD's own Secrets stay out of reach.
	LabelHookSecret = "cmp-phase.io/hook-secret"
	// DefaultJobServiceAccount is the service account job hook pods run as unless the
	// agent's --job-service-account says otherwise.
	DefaultJobServiceAccount = "default"
	// LabelLegacyJobName is the job controller's unprefixed label naming a Job on its pods,
	// the only one before Kubernetes 1.27 (batchv1.JobNameLabel since); the agent finds a
	// finished Job's pods by it when the prefixed one finds none, to read their log.
	LabelLegacyJobName = "job-name"
)
