package rollout

import (
	"strings"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// EvShardHeld: a shard of a sharded rollout (its parent missing, its render failing, shards
// disagreeing) holds the rollout; nothing is admitted anywhere until it is back.
const EvShardHeld = "ShardHeld"

// shardHeldPrefix starts the rollout's reason while a shard holds it.
const shardHeldPrefix = "held: "

// shardsHeld holds everything while o.ShardHold names a shard that is not there (fail
// closed: a phase spans every shard, and a shard that cannot render cannot move or confirm
// its children). It records the reason in a running rollout and tells people once per
// reason (the agent's shard lines in status show it without one); a reason of a hold that ended is cleared. It reports whether the rollout holds.
func shardsHeld(st *state.State, o Observed, now time.Time, acts *[]Action) bool {
	r := st.Rollout
	running := r != nil && !r.Status.IsTerminal()
	if o.ShardHold == "" {
		if running && strings.HasPrefix(r.Reason, shardHeldPrefix) {
			r.Reason = ""
		}
		return false
	}
	why := shardHeldPrefix + o.ShardHold
	if running && r.Reason != why {
		r.Reason = why
		emit(r, acts, now, EvShardHeld, why)
	}
	return true // without a running rollout there is nothing to record it in: status shows it
}
