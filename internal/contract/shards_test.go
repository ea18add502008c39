package contract

import "testing"

// TestShardValues pins the sharded parents' names, as TestValues does the others.
func TestShardValues(t *testing.T) {
	for _, c := range [][2]string{
		{EnvShard, "SHARD"}, {PluginEnvShard, "ARGOCD_ENV_SHARD"},
		{AnnotationShard, "cmp-phase.io/shard"}, {AnnotationShardView, "cmp-phase.io/shard-view"},
		{AnnotationShardChildren, "cmp-phase.io/shard-children"},
		{ShardPlanConfigMap("fleet", 0), "fleet-plan"}, {ShardPlanConfigMap("fleet", 2), "fleet-plan-2"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
}
