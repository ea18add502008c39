package clustersecrets

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
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
	inv, left := Read([]*corev1.Secret{s})
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
	if len(left) != 1 || !strings.Contains(left[0].Msg, "kapp.k14s.io/original (") || !strings.Contains(left[0].Msg, "long (a value of 308 bytes") ||
		strings.Contains(left[0].Msg, "tok-") || !strings.Contains(left[0].Msg, "(fix: ") {
		t.Fatalf("what is withheld is said by key, never by value: %+v", left)
	}
}

// TestADuplicateClusterNameLeavesOnlyTheDuplicateOut: two Secrets naming the same cluster no
// longer make the inventory (and so every render) fail: the older keeps the name, whatever
// the list order, and a Warning names both Secrets and the fix.
func TestADuplicateClusterNameLeavesOnlyTheDuplicateOut(t *testing.T) {
	old := clusterSecret("prod-1", "https://prod-1", nil)
	old.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	dup := clusterSecret("prod-1", "https://attacker", nil)
	dup.Name, dup.CreationTimestamp = "a-copy", metav1.NewTime(old.CreationTimestamp.Add(time.Hour))
	other := clusterSecret("dev-1", "https://dev-1", nil)
	for _, order := range [][]*corev1.Secret{{old, dup, other}, {dup, other, old}} {
		inv, _ := Read(order)
		if len(inv.Clusters) != 2 || inv.Clusters[1].Name != "prod-1" || inv.Clusters[1].Server != "https://prod-1" {
			t.Fatalf("%+v", inv.Clusters)
		}
	}
	same := dup.DeepCopy() // same age: by namespace and name
	same.CreationTimestamp = old.CreationTimestamp
	if inv, _ := Read([]*corev1.Secret{old, same}); inv.Clusters[0].Server != "https://attacker" {
		t.Fatalf("a-copy sorts before cluster-prod-1 at the same age: %+v", inv.Clusters)
	}

}

func TestInventoryNeverCarriesCredentials(t *testing.T) {
	secrets := []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "c2", Labels: map[string]string{contract.LabelSecretType: contract.SecretTypeCluster, "env": "prod"},
			Annotations: map[string]string{"team": "payments", corev1.LastAppliedConfigAnnotation: `{"data":{"config":"c2VjcmV0"}}`}},
			Data: map[string][]byte{"name": []byte("prod"), "server": []byte("https://10.0.0.2"), "config": []byte(`{"bearerToken":"s3cr3t"}`)}},
		{ObjectMeta: metav1.ObjectMeta{Name: "c1", Labels: map[string]string{contract.LabelSecretType: contract.SecretTypeCluster}},
			Data: map[string][]byte{"name": []byte("dev"), "server": []byte("https://10.0.0.1"), "project": []byte("team-a")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "repo", Labels: map[string]string{contract.LabelSecretType: "repository"}},
			Data: map[string][]byte{"url": []byte("https://git")}},
	}
	inv := Inventory(secrets)
	b, err := inv.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Clusters) != 2 || inv.Clusters[0].Name != "dev" || inv.Clusters[0].Project != "team-a" || inv.Clusters[1].Annotations["team"] != "payments" {
		t.Fatalf("%+v", inv.Clusters)
	}
	for _, secret := range []string{"s3cr3t", "bearerToken", "c2VjcmV0", "last-applied"} {
		if strings.Contains(string(b), secret) {
			t.Fatalf("the inventory carries %q: %s", secret, b)
		}
	}
}

// clusterSecret is an Argo CD cluster Secret.
func clusterSecret(name, server string, labels map[string]string) *corev1.Secret {
	l := map[string]string{contract.LabelSecretType: contract.SecretTypeCluster}
	for k, v := range labels {
		l[k] = v
	}
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "cluster-" + name, Namespace: "argocd", Labels: l},
		Data: map[string][]byte{"name": []byte(name), "server": []byte(server), "config": []byte(`{"bearerToken":"s3cr3t"}`)}}
}
