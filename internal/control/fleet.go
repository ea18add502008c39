package control

import (
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// FleetStop is the fleet-wide stop, as the fleet ConfigMap holds it: while it is on, every
// rollout the agent drives is paused.
type FleetStop struct {
	Reason string
	By     string
}

// fleetKeys are the keys of the fleet ConfigMap.
var fleetKeys = []string{contract.StopAllKey, contract.ByKey, contract.WindowsKey}

// ParseFleet reads the fleet ConfigMap's data: the stop (nil when none is on) and the keys
// it does not know, which it ignores.
func ParseFleet(data map[string]string) (*FleetStop, []Problem) {
	var problems []Problem
	for _, k := range sortedKeys(data) {
		if !slices.Contains(fleetKeys, k) {
			problems = append(problems, Problemf(k, data[k], "unknown key of %s (fix: remove it; the keys are %s)", contract.FleetConfigMap, strings.Join(fleetKeys, ", ")))
		}
	}
	why, ok := data[contract.StopAllKey]
	if !ok {
		return nil, problems
	}
	if why = strings.TrimSpace(why); why == "" {
		why = "no reason given"
	}
	return &FleetStop{Reason: why, By: strings.TrimSpace(data[contract.ByKey])}, problems
}
