package clustersecrets

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
)

// FromArgoCD is Read over the clusters argocd-server's cluster API lists (GET
// /api/v1/clusters, which returns no credentials), for an agent allowed no list or watch on
// Secrets. The inventory is the one Read makes of the same Secrets, except that Argo CD
// does not return a Secret's managed-by annotation, and trims a server's trailing '/':
//   - Argo CD's built-in in-cluster entry, listed when no Secret names its server, is left
//     out as Read leaves it out (it has no Secret). The API does not say which entries have
//     a Secret: the one left out is named in-cluster, has the in-cluster server and no
//     labels, annotations or project — a Secret exactly like it is left out too;
//   - each cluster's labels carry the cluster Secret label Argo CD drops, as the Secret does;
//   - without creation times, a duplicate name is kept by the first cluster by server.
func FromArgoCD(clusters []v1alpha1.Cluster) (*inventory.Inventory, []Omission) {
	clusters = slices.Clone(clusters)
	slices.SortStableFunc(clusters, func(a, b v1alpha1.Cluster) int { return strings.Compare(a.Server, b.Server) })
	var entries []entry
	for _, c := range clusters {
		if BuiltInLocal(c) || c.Server == "" {
			continue
		}
		labels := maps.Clone(c.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels[contract.LabelSecretType] = contract.SecretTypeCluster
		entries = append(entries, entry{
			what: clusterWhat(c), field: "its Secret's data.name",
			name: c.Name, server: c.Server, project: c.Project, labels: labels, annotations: c.Annotations,
		})
	}
	return build(entries)
}

// clusterWhat names c in a message.
func clusterWhat(c v1alpha1.Cluster) string {
	if c.Name == "" {
		return "Argo CD's cluster of server " + c.Server
	}
	return fmt.Sprintf("Argo CD's cluster %s (server %s)", c.Name, c.Server)
}

// BuiltInLocal says whether c is Argo CD's built-in in-cluster entry, which has no Secret.
func BuiltInLocal(c v1alpha1.Cluster) bool {
	return c.Server == v1alpha1.KubernetesInternalAPIServerAddr && c.Name == "in-cluster" &&
		len(c.Labels) == 0 && len(c.Annotations) == 0 && c.Project == ""
}
