package status

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Load is the document `cmp-phase status -o json` prints, built from the rollout's state
// ConfigMap and its plan ConfigMaps (those contract.PlanSelector and
// contract.RolloutSelector select): the CLI and the agent's UI endpoint both read a rollout
// this way, so they show one document.
func Load(rollout string, stateCM *corev1.ConfigMap, plans []corev1.ConfigMap) (Doc, error) {
	st, err := state.FromConfigMap(stateCM)
	if err != nil {
		return Doc{}, fmt.Errorf("rollout %s: %w", rollout, err)
	}
	d := Of(rollout, st)
	AddShards(&d, ShardsOf(plans))
	return d, nil
}

// ShardsOf are the shards a sharded rollout's plans say (none for a rollout one parent
// renders).
func ShardsOf(plans []corev1.ConfigMap) []Shard {
	var out []Shard
	for _, cm := range plans {
		sh := cm.Annotations[contract.AnnotationShard]
		if sh == "" {
			continue
		}
		gen, _ := strconv.ParseInt(cm.Annotations[contract.AnnotationGeneration], 10, 64)
		n, _ := strconv.Atoi(cm.Annotations[contract.AnnotationShardChildren])
		out = append(out, Shard{Shard: sh, Parent: cm.Annotations[contract.AnnotationParent], Children: n, Generation: gen})
	}
	return out
}
