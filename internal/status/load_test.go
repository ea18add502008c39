package status

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestLoadReadsStateAndShardPlans: the document of a state ConfigMap, with the shards its
// plans say (a plan without a shard annotation adds none); a state that does not decode is
// an error naming the rollout.
func TestLoadReadsStateAndShardPlans(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.StateConfigMap("fleet"), Namespace: "argocd"}}
	if err := state.ToConfigMap(&state.State{Schema: state.Schema, Generation: 3}, cm); err != nil {
		t.Fatal(err)
	}
	plan := func(shard, parent string) corev1.ConfigMap {
		return corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{contract.AnnotationShard: shard,
			contract.AnnotationParent: parent, contract.AnnotationGeneration: "3", contract.AnnotationShardChildren: "5"}}}
	}
	d, err := Load("fleet", cm, []corev1.ConfigMap{plan("1/2", "fleet-1"), plan("0/2", "fleet-0"), {}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rollout != "fleet" || d.Generation != 3 || d.Status != Idle || len(d.Shards) != 2 || d.Shards[0] != (Shard{Shard: "0/2", Parent: "fleet-0", Children: 5, Generation: 3}) {
		t.Fatalf("%+v", d)
	}
	if d, err := Load("fleet", cm, nil); err != nil || d.Shards != nil {
		t.Fatalf("one parent: %v %+v", err, d.Shards)
	}
	bad := cm.DeepCopy()
	for k := range bad.BinaryData {
		bad.BinaryData[k] = []byte("not gzip")
	}
	for k := range bad.Data {
		bad.Data[k] = "not a state"
	}
	if _, err := Load("fleet", bad, nil); err == nil || !strings.Contains(err.Error(), "rollout fleet") {
		t.Fatalf("a state that does not decode: %v", err)
	}
}
