package rollout

import "time"

// RequeueAt is the earliest time acts ask the engine to be called again (ActRequeue); zero
// when none does.
func RequeueAt(acts []Action) time.Time {
	var at time.Time
	for _, act := range acts {
		if act.Kind == ActRequeue && (at.IsZero() || act.At.Before(at)) {
			at = act.At
		}
	}
	return at
}
