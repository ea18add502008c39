package rollout

import "strings"

// EvShardHeld: a shard of a sharded rollout (its parent missing, its render failing, shards
// disagreeing) holds the rollout; nothing is admitted anywhere until it is back.
const EvShardHeld = "ShardHeld"

// shardHeldPrefix starts the rollout's reason while a shard holds it.
const shardHeldPrefix = "held: "

// shardsHeld holds everything while o.ShardHold names a shard that is not there (fail
// closed: a phase spans every shard, and a shard that cannot render cannot move or confirm
// its children). It records the reason in a running rollout and tells people once per
// reason (the agent's shard lines in status show it without one); a reason of a hold that ended is cleared. It reports whether the rollout holds.
func (ps *pass) shardsHeld() bool {
	o := ps.o
	r := ps.st.Rollout
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
		ps.emit(r, EvShardHeld, why)
	}
	return true // without a running rollout there is nothing to record it in: status shows it
}

// recordSettled judges, while a shard holds the rollout, the members the current phase
// admitted — a child that synced is recorded Done (or Failed) when it happens, not when the
// hold ends — and nothing more: no admission, no failure policy, no phase ends. The pass
// after the hold decides on what was recorded.
func (ps *pass) recordSettled() {
	r, p := ps.st.Rollout, ps.p
	if r == nil || r.Status != StatusProgressing || r.Revision != p.Revision || r.Phase >= len(r.Phases) || r.Phase >= len(p.Phases) {
		return
	}
	if len(r.Tracks) > 0 && r.Phase >= r.Split() {
		return // past the split r.Phase names no phase of its own (each track has its place)
	}
	if ph := &r.Phases[r.Phase]; len(ph.Admitted) > 0 && !ph.Status.IsTerminal() {
		ps.settle(ph, p.Phases[r.Phase])
	}
}
