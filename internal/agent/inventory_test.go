package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
)

// TestADuplicateClusterNameIsWarnedOnEveryParent: the inventory keeps the older Secret's
// cluster (clustersecrets.Read), publishes the others, and a Warning names both Secrets
// and the fix.
func TestADuplicateClusterNameIsWarnedOnEveryParent(t *testing.T) {
	ctx := context.Background()
	old := clusterSecret("prod-1", "https://prod-1", nil)
	old.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	dup := clusterSecret("prod-1", "https://attacker", nil)
	dup.Name, dup.CreationTimestamp = "a-copy", metav1.NewTime(old.CreationTimestamp.Add(time.Hour))
	other := clusterSecret("dev-1", "https://dev-1", nil)
	f := newFakeAgent(t, nil, dup, old, other, planOf("web", "web-parent"))
	if _, err := f.publish(ctx); err != nil {
		t.Fatal(err)
	}
	cm, err := f.kube.CoreV1().ConfigMaps(testNS).Get(ctx, contract.InventoryConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if inv, err := inputs.InventoryFromConfigMap(cm); err != nil || len(inv.Clusters) != 2 {
		t.Fatalf("the published inventory: %v %+v", err, inv)
	}
	ev := drain(f.events)
	want := `Warning ClusterNameDuplicate cluster Secret ` + testNS + `/cluster-prod-1 and cluster Secret ` + testNS + `/a-copy both name cluster "prod-1"`
	if len(ev) != 1 || !strings.HasPrefix(ev[0], want) || !strings.Contains(ev[0], "(fix: give cluster Secret "+testNS+"/a-copy another data.name") {
		t.Fatalf("events %q", ev)
	}
}

// TestAClusterNamedByAnARNIsLeftOutWithAWarning: one cluster registered under a name that
// cannot be a label value (an EKS ARN) is left out of the inventory, said on every parent,
// and the other clusters are published, so rollouts selecting it still render and decide.
func TestAClusterNamedByAnARNIsLeftOutWithAWarning(t *testing.T) {
	ctx := context.Background()
	arn := clusterSecret("arn:aws:eks:eu-west-1:123456789012:cluster/prod", "https://prod", nil)
	other := clusterSecret("dev-1", "https://dev-1", nil)
	f := newFakeAgent(t, nil, arn, other, planOf("web", "web-parent"))
	if _, err := f.publish(ctx); err != nil {
		t.Fatal(err)
	}
	cm, err := f.kube.CoreV1().ConfigMaps(testNS).Get(ctx, contract.InventoryConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if inv, err := inputs.InventoryFromConfigMap(cm); err != nil || len(inv.Clusters) != 1 || inv.Clusters[0].Name != "dev-1" {
		t.Fatalf("the published inventory: %v %+v", err, inv)
	}
	ev := drain(f.events)
	want := `Warning ClusterNameNotALabel cluster Secret ` + testNS + `/` + arn.Name + ` names cluster "arn:aws:eks:eu-west-1:123456789012:cluster/prod", which is not a Kubernetes label value`
	if len(ev) != 1 || !strings.HasPrefix(ev[0], want) || !strings.Contains(ev[0], `(fix: set the Secret's data.name to a short name such as "prod")`) {
		t.Fatalf("events %q", ev)
	}
}
