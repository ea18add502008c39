package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inputs"
)

// TestOnlyShortPlainAnnotationsArePublished: kapp's original (which leaked a bearer token),
// kubectl's last-applied-configuration, any key deploy tools keep copies under, and any value
// shaped like a copy (a JSON or YAML map or list) or over 256 bytes stay out of the inventory;
// the short values templates use (a URL, an owner) are published.
func TestOnlyShortPlainAnnotationsArePublished(t *testing.T) {
	s := clusterSecret("prod-1", "https://prod-1", nil)
	s.Annotations = map[string]string{
		"kapp.k14s.io/original":                  `{"apiVersion":"v1","kind":"Secret","stringData":{"config":"{\"bearerToken\":\"tok-kapp\"}"}}`,
		"kapp.k14s.io/original-diff":             `[{"op":"add","path":"/stringData","value":{"config":"tok-diff"}}]`,
		corev1.LastAppliedConfigAnnotation:       `{"data":{"config":"tok-kubectl"}}`,
		"example.com/last-applied-configuration": "tok-suffix",
		"backup.example.com/original":            "tok-original",
		"notes":                                  "config:\n  bearerToken: tok-yaml\n",
		"flow":                                   "{bearerToken: tok-flow}",
		"list":                                   `["tok-list"]`,
		"long":                                   "tok-long" + strings.Repeat("x", 300),
		"guestbook-health-url":                   "https://prod-1.example.com/healthz?probe=1",
		"owner":                                  "team-payments",
		"at-the-limit":                           strings.Repeat("y", MaxAnnotationValue),
	}
	inv, left := inventoryOf([]*corev1.Secret{s})
	b, err := inv.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "tok-") {
		t.Fatalf("the inventory carries a copy: %s", b)
	}
	got := inv.Clusters[0].Annotations
	if len(got) != 3 || got["guestbook-health-url"] != s.Annotations["guestbook-health-url"] || got["owner"] != "team-payments" || len(got["at-the-limit"]) != MaxAnnotationValue {
		t.Fatalf("published %v", got)
	}
	if len(left) != 1 || !strings.Contains(left[0].msg, "kapp.k14s.io/original (") || !strings.Contains(left[0].msg, "long (a value of 308 bytes") ||
		strings.Contains(left[0].msg, "tok-") || !strings.Contains(left[0].msg, "(fix: ") {
		t.Fatalf("what is withheld is said by key, never by value: %+v", left)
	}
}

// TestADuplicateClusterNameLeavesOnlyTheDuplicateOut: two Secrets naming the same cluster no
// longer make the inventory (and so every render) fail: the older keeps the name, whatever
// the list order, and a Warning names both Secrets and the fix.
func TestADuplicateClusterNameLeavesOnlyTheDuplicateOut(t *testing.T) {
	ctx := context.Background()
	old := clusterSecret("prod-1", "https://prod-1", nil)
	old.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	dup := clusterSecret("prod-1", "https://attacker", nil)
	dup.Name, dup.CreationTimestamp = "a-copy", metav1.NewTime(old.CreationTimestamp.Add(time.Hour))
	other := clusterSecret("dev-1", "https://dev-1", nil)
	for _, order := range [][]*corev1.Secret{{old, dup, other}, {dup, other, old}} {
		inv, _ := inventoryOf(order)
		if len(inv.Clusters) != 2 || inv.Clusters[1].Name != "prod-1" || inv.Clusters[1].Server != "https://prod-1" {
			t.Fatalf("%+v", inv.Clusters)
		}
	}
	same := dup.DeepCopy() // same age: by namespace and name
	same.CreationTimestamp = old.CreationTimestamp
	if inv, _ := inventoryOf([]*corev1.Secret{old, same}); inv.Clusters[0].Server != "https://attacker" {
		t.Fatalf("a-copy sorts before cluster-prod-1 at the same age: %+v", inv.Clusters)
	}

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
	want := `Warning ClusterNameDuplicate cluster Secrets ` + testNS + `/cluster-prod-1 and ` + testNS + `/a-copy both name cluster "prod-1"`
	if len(ev) != 1 || !strings.HasPrefix(ev[0], want) || !strings.Contains(ev[0], "(fix: give "+testNS+"/a-copy another data.name") {
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
