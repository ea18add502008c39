package main

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

func planCM(name, rollout string, ann map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "argocd", Annotations: ann,
		Labels: map[string]string{contract.LabelPlan: contract.MarkerValue, contract.LabelRollout: rollout}}}
}

// TestStatusReadsTheShardPlans: status lists a sharded rollout's shards from their plans,
// and none for a rollout of one parent or another rollout's.
func TestStatusReadsTheShardPlans(t *testing.T) {
	kc := fake.NewClientset(
		planCM("fleet-plan", "fleet", map[string]string{contract.AnnotationShard: "0/2", contract.AnnotationParent: "fleet-0",
			contract.AnnotationGeneration: "5", contract.AnnotationShardChildren: "3"}),
		planCM("fleet-plan-1", "fleet", map[string]string{contract.AnnotationShard: "1/2", contract.AnnotationParent: "fleet-1",
			contract.AnnotationGeneration: "4", contract.AnnotationShardChildren: "2"}),
		planCM("other-plan", "other", map[string]string{contract.AnnotationParent: "other"}),
	)
	got, err := shardsOf(context.Background(), kc, "argocd", "fleet")
	if err != nil || len(got) != 2 {
		t.Fatalf("%+v %v", got, err)
	}
	for _, s := range got {
		if (s.Shard == "0/2" && (s.Parent != "fleet-0" || s.Children != 3 || s.Generation != 5)) ||
			(s.Shard == "1/2" && (s.Parent != "fleet-1" || s.Children != 2 || s.Generation != 4)) {
			t.Errorf("shard %+v", s)
		}
	}
	if none, err := shardsOf(context.Background(), kc, "argocd", "other"); err != nil || len(none) != 0 {
		t.Errorf("unsharded: %+v %v", none, err)
	}
}
