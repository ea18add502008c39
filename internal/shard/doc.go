// Package shard splits one rollout's children between several parent Applications (the
// parent's plugin env SHARD=k/N): a child belongs to shard fnv64a(child name) mod N, so the
// shards are disjoint, and a child never changes shard when other clusters join or leave.
// Pure and stdlib only: the renderer filters by it, the agent groups by it.
package shard
