package main

import (
	"sync/atomic"
)

// readiness is what /readyz answers: ready once leader election has settled — this process
// leads and its caches have synced, or another leader is known and this one stands by — or,
// without election, once the caches have synced.
type readiness struct {
	election   bool
	synced     func() bool // the agent's caches synced (agent.Agent.Synced)
	leading    atomic.Bool
	leaderSeen atomic.Bool // a leader other than this process is known
}

// why is "" when ready, else what it waits for.
func (r *readiness) why() string {
	switch {
	case !r.election || r.leading.Load():
		if r.synced == nil || !r.synced() {
			return "caches not synced yet"
		}
		return ""
	case r.leaderSeen.Load():
		return ""
	default:
		return "leader election not settled yet"
	}
}
