package clustersecrets

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argodb "github.com/argoproj/argo-cd/v3/util/db"
	corev1 "k8s.io/api/core/v1"
)

// asArgoCDListsThem are the clusters argocd-server's cluster API answers for secrets:
// Argo CD's own conversion of a cluster Secret, sanitized as its API sends it, through JSON,
// and its built-in in-cluster entry (no Secret names that server).
func asArgoCDListsThem(t *testing.T, secrets []*corev1.Secret) []v1alpha1.Cluster {
	t.Helper()
	list := v1alpha1.ClusterList{}
	for _, s := range secrets {
		c, err := argodb.SecretToCluster(s)
		if err != nil {
			t.Fatal(err)
		}
		list.Items = append(list.Items, *c.Sanitized())
	}
	list.Items = append(list.Items, v1alpha1.Cluster{Name: "in-cluster", Server: v1alpha1.KubernetesInternalAPIServerAddr})
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	var got v1alpha1.ClusterList
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	return got.Items
}

// TestArgoCDsClusterListMakesTheSameInventory: an agent that reads the clusters from
// argocd-server's API publishes, byte for byte, the inventory one reading the same cluster
// Secrets publishes — labels (the Secret label included), project, short annotations,
// the clusters left out and why — so switching modes moves no child.
func TestArgoCDsClusterListMakesTheSameInventory(t *testing.T) {
	prod := clusterSecret("prod-1", "https://prod-1", map[string]string{"env": "prod", "region": "eu"})
	prod.Annotations = map[string]string{"owner": "team-payments", "kapp.k14s.io/original": `{"stringData":{"config":"tok"}}`,
		corev1.LastAppliedConfigAnnotation: `{"data":{"config":"tok"}}`}
	prod.Data["project"] = []byte("payments")
	unnamed := clusterSecret("", "https://10.0.0.9", nil)
	unnamed.Name = "cluster-unnamed"
	long := clusterSecret("arn:aws:eks:eu-west-1:123456789012:cluster/prod", "https://eks", nil)
	secrets := []*corev1.Secret{prod, clusterSecret("dev-1", "https://dev-1", map[string]string{"env": "dev"}), unnamed, long}

	want, wantLeft := Read(secrets)
	got, gotLeft := FromArgoCD(asArgoCDListsThem(t, secrets), nil)
	wb, _ := want.Encode()
	gb, _ := got.Encode()
	if string(wb) != string(gb) {
		t.Fatalf("from argocd-server:\n%s\nfrom the Secrets:\n%s", gb, wb)
	}
	reasons := func(left []Omission) string {
		var r []string
		for _, o := range left {
			if !strings.Contains(o.Msg, "(fix: ") {
				t.Errorf("no fix: %+v", o)
			}
			r = append(r, o.Reason+"|")
		}
		slices.Sort(r)
		return strings.Join(r, "")
	}
	if len(gotLeft) != 3 || reasons(gotLeft) != reasons(wantLeft) {
		t.Fatalf("left out: %+v, from the Secrets %+v", gotLeft, wantLeft)
	}
	if strings.Contains(string(gb), "tok") || strings.Contains(string(gb), "in-cluster") {
		t.Fatalf("credentials or the built-in in-cluster entry: %s", gb)
	}
}

// TestArgoCDsInClusterSecretIsKept: a Secret for the in-cluster server is a cluster like
// any other once it has a label, an annotation, a project or another name.
func TestArgoCDsInClusterSecretIsKept(t *testing.T) {
	s := clusterSecret("in-cluster", v1alpha1.KubernetesInternalAPIServerAddr, map[string]string{"env": "dev"})
	got, _ := FromArgoCD(asArgoCDListsThem(t, []*corev1.Secret{s})[:1], nil)
	if len(got.Clusters) != 1 || got.Clusters[0].Name != "in-cluster" || got.Clusters[0].Labels["env"] != "dev" {
		t.Fatalf("%+v", got.Clusters)
	}
}

// TestArgoCDsDuplicateNameStaysWithItsCluster: the API gives no age, so a name two
// clusters claim stays with the server the inventory had under it — a cluster registered
// later under a taken name (with a smaller server) takes nothing over — and a name the
// inventory did not have is published for neither; whatever the API's order.
func TestArgoCDsDuplicateNameStaysWithItsCluster(t *testing.T) {
	owner := v1alpha1.Cluster{Name: "prod", Server: "https://z-old", Labels: map[string]string{"env": "prod"}}
	claim := v1alpha1.Cluster{Name: "prod", Server: "https://a-new", Labels: map[string]string{"env": "dev"}}
	prev, _ := FromArgoCD([]v1alpha1.Cluster{owner}, nil)
	for _, order := range [][]v1alpha1.Cluster{{owner, claim}, {claim, owner}} {
		inv, left := FromArgoCD(order, prev)
		if len(inv.Clusters) != 1 || inv.Clusters[0].Server != "https://z-old" || len(left) != 1 || left[0].Reason != "ClusterNameDuplicate" {
			t.Fatalf("the owner keeps its name: %+v %+v", inv.Clusters, left)
		}
		inv, left = FromArgoCD(order, nil)
		if len(inv.Clusters) != 0 || len(left) != 1 || !strings.Contains(left[0].Msg, "(fix: ") {
			t.Fatalf("a new name two claim: %+v %+v", inv.Clusters, left)
		}
	}
}

// TestArgoCDsCopiesOfOneClusterDoNotFlap: two Secrets of one name and server (a copy,
// relabelled) publish the same one whatever order argocd-server lists them in.
func TestArgoCDsCopiesOfOneClusterDoNotFlap(t *testing.T) {
	a := v1alpha1.Cluster{Name: "prod-1", Server: "https://prod-1", Labels: map[string]string{"env": "prod"}}
	b := v1alpha1.Cluster{Name: "prod-1", Server: "https://prod-1", Labels: map[string]string{"env": "dev"}}
	prev, _ := FromArgoCD([]v1alpha1.Cluster{a}, nil)
	x, _ := FromArgoCD([]v1alpha1.Cluster{a, b}, prev)
	y, _ := FromArgoCD([]v1alpha1.Cluster{b, a}, prev)
	xb, _ := x.Encode()
	yb, _ := y.Encode()
	if string(xb) != string(yb) || len(x.Clusters) != 1 {
		t.Fatalf("the published cluster depends on argocd-server's order:\n%s\n%s", xb, yb)
	}
}

// TestSwitchingModesMovesNothing: what Argo CD changes or drops on its way through its API
// — the managed-by annotation its CLI sets, a server's trailing '/', a kubectl-applied
// in-cluster Secret that then looks like Argo CD's built-in entry — publishes, after the
// Secrets' inventory, the same inventory.
func TestSwitchingModesMovesNothing(t *testing.T) {
	added := clusterSecret("prod-1", "https://prod-1", map[string]string{"env": "prod"})
	added.Annotations = map[string]string{"managed-by": "argocd.argoproj.io", "owner": "payments"}
	slash := clusterSecret("prod-2", "https://prod-2/", nil)
	in := clusterSecret("in-cluster", v1alpha1.KubernetesInternalAPIServerAddr, nil)
	in.Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: `{}`}
	secrets := []*corev1.Secret{added, slash, in}
	before, _ := Read(secrets)
	after, _ := FromArgoCD(asArgoCDListsThem(t, secrets)[:3], before)
	wb, _ := before.Encode()
	gb, _ := after.Encode()
	if string(wb) != string(gb) || strings.Contains(string(wb), "managed-by") {
		t.Fatalf("from argocd-server:\n%s\nfrom the Secrets:\n%s", gb, wb)
	}
}
