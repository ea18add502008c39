package main

import (
	"context"
	"fmt"

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
	return status.ShardsOf(plans.Items), nil
}
