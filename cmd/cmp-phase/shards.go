package main

import (
	"context"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/status"
)

// shardsOf reads a rollout's shard plans (a sharded rollout's parents each render one):
// none for a rollout one parent renders.
func shardsOf(ctx context.Context, kc kubernetes.Interface, ns, rollout string) ([]status.Shard, error) {
	sel := contract.PlanSelector + "," + contract.RolloutSelector(rollout)
	plans, err := kc.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("list the plans of %s: %w", rollout, err)
	}
	var out []status.Shard
	for _, cm := range plans.Items {
		sh := cm.Annotations[contract.AnnotationShard]
		if sh == "" {
			continue
		}
		gen, _ := strconv.ParseInt(cm.Annotations[contract.AnnotationGeneration], 10, 64)
		n, _ := strconv.Atoi(cm.Annotations[contract.AnnotationShardChildren])
		out = append(out, status.Shard{Shard: sh, Parent: cm.Annotations[contract.AnnotationParent], Children: n, Generation: gen})
	}
	return out, nil
}
