package contract

import "strconv"

// Sharded parents: several parents render one rollout, each its part of the children.
const (
	// EnvShard is the parent's plugin env "k/N": the parent renders shard k of N.
	EnvShard = "SHARD"
	// PluginEnvShard is EnvShard as the plugin reads it.
	PluginEnvShard = EnvPrefix + EnvShard
	// AnnotationShard, on a sharded parent's plan, is its "k/N".
	AnnotationShard = "cmp-phase.io/shard"
	// AnnotationShardView, on a sharded parent's plan, is the digest of what the state
	// assigns the shard's children (render.ShardView): the agent re-renders a shard only
	// when the state changes it, and confirms the render by it.
	AnnotationShardView = "cmp-phase.io/shard-view"
	// AnnotationShardChildren, on a sharded parent's plan, is how many children it rendered.
	AnnotationShardChildren = "cmp-phase.io/shard-children"
)

// ShardPlanConfigMap is the plan of shard k ≥ 1 of a rollout; shard 0's is PlanConfigMap.
func ShardPlanConfigMap(rollout string, k int) string {
	if k == 0 {
		return PlanConfigMap(rollout)
	}
	return PlanConfigMap(rollout) + "-" + strconv.Itoa(k)
}
