package contract

import "strings"

// ConfigMaps in the agent's namespace. The plugin reads the state and inventory and
// renders the plan; the agent writes the state and inventory and reads the plan; the CLI
// reads all three and writes steering keys into the state; people may edit the state's
// steering keys.
const (
	// InventoryConfigMap is the cluster inventory the agent publishes and the plugin reads.
	InventoryConfigMap = "cmp-phase-inventory"

	stateSuffix = "-state"
	planSuffix  = "-plan"
)

// StateConfigMap is the name of a rollout's state ConfigMap.
func StateConfigMap(rollout string) string { return rollout + stateSuffix }

// PlanConfigMap is the name of a rollout's plan ConfigMap.
func PlanConfigMap(rollout string) string { return rollout + planSuffix }

// RolloutOfState is the rollout a state ConfigMap name belongs to; false when the name is
// not a state ConfigMap's.
func RolloutOfState(name string) (string, bool) {
	r, ok := strings.CutSuffix(name, stateSuffix)
	return r, ok && r != ""
}

// Keys of the state ConfigMap that the agent writes.
const (
	// StateKey (binaryData) holds the gzip'd JSON state document.
	StateKey = "state.json.gz"
	// GenerationKey repeats the state's generation in plain text for people and quick checks.
	GenerationKey = "generation"
	// StatusKey is where the agent shows the rollout and the steering edits it refused.
	StatusKey = "status"
)

// Steering keys of the state ConfigMap that a person (or the CLI for them) writes; the
// agent acts on them and removes the one-shot ones.
const (
	PauseKey      = "pause"       // why; the rollout holds until resumed (or pause-until passes)
	PauseUntilKey = "pause-until" // optional, RFC 3339, in the future
	ResumeKey     = "resume"      // any value; ends a pause
	ApproveKey    = "approve"     // a phase name: one approval of its gate (approval, or maxUpdate: 0)
	PromoteKey    = "promote"     // a phase name: ends its soak now
	JumpKey       = "jump"        // a phase name ahead of the current one
	ForceKey      = "force"       // "true": a jump may pass unfinished gates
	AbortKey      = "abort"       // why; stops the rollout where it is
	RollbackKey   = "rollback"    // why; returns admitted clusters to what they ran before
	SkipKey       = "skip"        // comma-separated child names to quarantine; remove to un-skip
	// ConfirmRemovalKey confirms removals a spec with confirmRemoval waits for: "all", or
	// comma-separated child names.
	ConfirmRemovalKey = "confirm-removal"
	// OverrideWindowKey names a change window a person lets the held phase's next admission
	// through, once (with by and reason, recorded).
	OverrideWindowKey = "override-window"
	// ConfirmRemoveRolloutKey confirms that a rollout whose spec is gone from git goes: its
	// value is the deployed revision the render names; the agent then removes every child.
	ConfirmRemoveRolloutKey = "confirm-remove-rollout"
	ByKey                   = "by"     // who made the edit (the CLI sets it)
	ReasonKey               = "reason" // why, for edits that carry no reason of their own (the CLI sets it)
)

// Keys of the plan ConfigMap the plugin renders for the agent.
const (
	// PlanSpecKey holds the revision (generators, template) the agent stores in the state.
	PlanSpecKey = "spec.json"
	// PlanPhasesKey holds the normalised phases, hooks and checks.
	PlanPhasesKey = "phases.json"
	// PlanRevisionKey holds the revision id (content hash).
	PlanRevisionKey = "revision"
	// PlanRevisionsKey backs up the other revisions the state keeps (id → body), so the
	// agent can rebuild a lost state from the live children's revision annotations.
	PlanRevisionsKey = "revisions.json"
	// PlanUnphasedKey lists children whose sources follow a moving ref the plugin cannot
	// see (child → repoURL@ref): their changes are not phased.
	PlanUnphasedKey = "unphased.json"
	// PlanLeftOutKey lists children no phase selects and nothing deploys whose template
	// cannot render (child → why): left out of the render instead of failing it.
	PlanLeftOutKey = "leftout.json"
	// PlanChildrenKey says how the render that wrote the plan renders children (their
	// namespace and sync options, from the parent's environment), so the agent can apply
	// an admitted child with the very bytes that render produces.
	PlanChildrenKey = "children.json"
)

// InventoryKey is the data key of the inventory in its ConfigMap (and the format of a
// file given to cmp-phase generate).
const InventoryKey = "clusters.json"

// InventoryGzipKey is the binaryData key of a large inventory, gzip'd JSON of the same
// format (inputs.InventoryData decides which of the two keys holds it).
const InventoryGzipKey = "clusters.json.gz"
