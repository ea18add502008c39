// Package shardset is the shards of a sharded rollout as one pass of the agent reads them
// (Member: each shard's plan and the parent that rendered it), pure: why their plans
// disagree (Conflict), why they hold the rollout (Hold) or its teardown (TeardownHold),
// each shard's view of the state (Views, Digest) and whether a transition touched it
// (Touched), and the highest PHASE_GEN their parents name (MaxPhaseGen).
package shardset
