package contract

// FleetConfigMap is the agent's fleet-wide control ConfigMap, in its namespace: what a person
// (or `cmp-phase stop-all` / `resume-all`) writes to act on every rollout the agent drives.
const FleetConfigMap = "cmp-phase-fleet"

// Keys of the fleet ConfigMap.
const (
	// StopAllKey holds why every rollout is stopped (paused) during an incident; removing
	// it releases them. ByKey beside it says who stopped them.
	StopAllKey = "stop-all"
	// WindowsKey holds fleet-wide change windows (a YAML list of windows, the spec's
	// shape) that apply to every rollout the agent drives.
	WindowsKey = "windows"
)
