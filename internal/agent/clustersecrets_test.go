package agent

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

const prod1Server = "https://prod-1.example:6443"

// TestClusterSecretName: the cluster Secret of a server is found in the trimmed cache, the
// one naming it; none or two are errors.
func TestClusterSecretName(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for name, server := range map[string]string{"cluster-prod-1": prod1Server, "cluster-a": "https://twice", "cluster-b": "https://twice"} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd", Labels: map[string]string{contract.LabelSecretType: contract.SecretTypeCluster}}}
		s.Name, s.Data = name, map[string][]byte{contract.ClusterSecretServer: []byte(server)}
		if err := idx.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	a := &Agent{caches: &caches{secrets: corelisters.NewSecretLister(idx).Secrets("argocd")}}
	if name, err := a.clusterSecretName(prod1Server); err != nil || name != "cluster-prod-1" {
		t.Fatalf("got %q %v", name, err)
	}
	if _, err := a.clusterSecretName("https://nowhere"); err == nil || !strings.Contains(err.Error(), "no cluster Secret names server https://nowhere") {
		t.Fatalf("none: %v", err)
	}
	if _, err := a.clusterSecretName("https://twice"); err == nil || !strings.Contains(err.Error(), "[cluster-a cluster-b] all name server") {
		t.Fatalf("two: %v", err)
	}
	if _, err := (&Agent{}).clusterSecretName(prod1Server); err == nil {
		t.Fatal("no caches yet")
	}
}

// TestClusterOwnName: the name a server's one cluster Secret gives the cluster, "" for a
// nameless one; no Secret cached (or none read yet) is not found.
func TestClusterOwnName(t *testing.T) {
	const server = "https://prod-1.example:6443"
	for _, tc := range []struct {
		name    string
		secrets *caches
		want    string
		found   bool
	}{
		{"named Secret", cachesOf(t, clusterSecret("prod-1", server, nil)), "prod-1", true},
		{"nameless Secret", cachesOf(t, clusterSecret("", server, nil)), "", true},
		{"no Secret cached", &caches{}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := (&Agent{caches: tc.secrets}).clusterOwnName(server); got != tc.want || ok != tc.found {
				t.Fatalf("got %q %v, want %q %v", got, ok, tc.want, tc.found)
			}
		})
	}
}
