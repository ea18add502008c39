package clustersource

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

type clusters []v1alpha1.Cluster

func (c clusters) Clusters(context.Context) ([]v1alpha1.Cluster, error) { return c, nil }

func (c clusters) CanI(context.Context, string, string, string) (bool, error) { return true, nil }

// some is an account allowed to get only some clusters (argocd-server lists those).
type some struct{ clusters }

func (some) CanI(_ context.Context, resource, action, object string) (bool, error) {
	return resource != "clusters" || action != "get" || object != "*", nil
}

// TestAnAccountThatSeesSomeClustersReadsNone: argocd-server lists only the clusters the
// account may get; one allowed only some would see the others as deleted, so nothing is
// read and no removal is confirmed until it may get them all.
func TestAnAccountThatSeesSomeClustersReadsNone(t *testing.T) {
	ctx := context.Background()
	src := ArgoCD(some{clusters{{Name: "prod-1", Server: "https://prod-1"}}}, kubefake.NewClientset(), "argocd", 0)
	if _, _, err := src.Read(ctx, nil); err == nil || !strings.Contains(err.Error(), "clusters, get, *, allow") {
		t.Fatalf("read: %v", err)
	}
	if back, err := src.Registered(ctx, "prod-2"); back || err == nil {
		t.Fatalf("a removal's last check: %v %v", back, err)
	}
}

// TestAPerClusterJobHookSaysWhichGrantItNeeds: without list on Secrets, the one read a
// per-cluster job hook needs fails naming the grant, not a bare "forbidden".
func TestAPerClusterJobHookSaysWhichGrantItNeeds(t *testing.T) {
	kube := kubefake.NewClientset()
	kube.PrependReactor("list", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", nil)
	})
	_, err := ArgoCD(clusters{}, kube, "argocd", 0).Secrets(context.Background())
	if err == nil || !strings.Contains(err.Error(), "fix: grant the agent list on secrets") {
		t.Fatalf("%v", err)
	}
}

// TestRegisteredMatchesTheInventorysName: a cluster without a name of its own is called by
// its server, from the Secrets as from argocd-server.
func TestRegisteredMatchesTheInventorysName(t *testing.T) {
	ctx := context.Background()
	kube := kubefake.NewClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "argocd",
		Labels: map[string]string{"argocd.argoproj.io/secret-type": "cluster"}}, Data: map[string][]byte{"server": []byte("https://10.0.0.1")}})
	api := clusters{{Server: "https://10.0.0.1"}, {Name: "in-cluster", Server: v1alpha1.KubernetesInternalAPIServerAddr}}
	for name, src := range map[string]Source{"secrets": Secrets(nil, kube, "argocd"), "argocd": ArgoCD(api, kube, "argocd", 0)} {
		for cluster, want := range map[string]bool{"https://10.0.0.1": true, "in-cluster": false, "": false} {
			got, err := src.Registered(ctx, cluster)
			// argocd-server's list cannot prove a cluster gone: the child is kept, said why
			unproven := name == "argocd" && !want
			if got != want || (err != nil) != unproven || (unproven && (!errors.Is(err, ErrUnproven) || !strings.Contains(err.Error(), "(fix: "))) {
				t.Errorf("%s: %q registered %v %v, want %v", name, cluster, got, err, want)
			}
		}
	}
}
