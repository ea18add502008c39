package clustersecrets

import (
	"cmp"
	"encoding/json"
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
// Secrets. prev is the inventory published before (nil: none); the API gives no Secret
// names, UIDs or creation times, so prev decides what they would:
//   - a name two clusters claim stays with the server prev published under it; a name prev
//     did not have is left out while two claim it (the API gives no age to pick the older);
//   - a server prev published with a trailing '/' keeps it (Argo CD trims it);
//   - Argo CD's built-in in-cluster entry, listed when no Secret names its server, is left
//     out as Read leaves it out (it has no Secret), unless prev had that cluster (a Secret
//     for it whose labels and annotations Argo CD dropped looks exactly like it);
//   - each cluster's labels carry the cluster Secret label Argo CD drops, as the Secret does.
//
// Argo CD does not return the managed-by annotation; Read does not publish it either.
func FromArgoCD(clusters []v1alpha1.Cluster, prev *inventory.Inventory) (*inventory.Inventory, []Omission) {
	had := map[string]inventory.Cluster{}
	if prev != nil {
		for _, c := range prev.Clusters {
			had[c.Name] = c
		}
	}
	var entries []entry
	for _, c := range clusters {
		name := c.Name
		if name == "" {
			name = c.Server
		}
		if c.Server == "" || (BuiltInLocal(c) && had[name].Server != c.Server) {
			continue
		}
		if p, ok := had[name]; ok && p.Server == c.Server+"/" {
			c.Server = p.Server
		}
		entries = append(entries, argoEntry(c))
	}
	entries, left := claimed(entries, had)
	inv, more := build(entries)
	return inv, append(left, more...)
}

// argoEntry is one cluster of argocd-server's list as build reads it.
func argoEntry(c v1alpha1.Cluster) entry {
	labels := maps.Clone(c.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[contract.LabelSecretType] = contract.SecretTypeCluster
	return entry{what: clusterWhat(c), field: "its Secret's data.name",
		name: c.Name, server: c.Server, project: c.Project, labels: labels, annotations: c.Annotations}
}

// claimed orders entries so that the one build keeps of each name is the one prev had (by
// server), else the only one; a name several claim, none of them at the server prev had
// under it, is left out whole. Entries of one name and server are ordered by their content,
// so the answer never depends on the API's order.
func claimed(entries []entry, had map[string]inventory.Cluster) ([]entry, []Omission) {
	key := func(e entry) string {
		b, _ := json.Marshal([]any{e.key(had), e.project, e.labels, e.annotations})
		return string(b)
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return strings.Compare(key(a), key(b)) })
	count, kept := map[string]int{}, map[string]bool{}
	for _, e := range entries {
		count[e.nameOrServer()]++
		kept[e.nameOrServer()] = kept[e.nameOrServer()] || e.key(had)[0] == '0'
	}
	var out []entry
	var left []Omission
	for _, e := range entries {
		name := e.nameOrServer()
		switch {
		case count[name] > 1 && !kept[name]:
			left = append(left, Omission{Reason: "ClusterNameDuplicate", Msg: fmt.Sprintf(
				"%d clusters of argocd-server name cluster %q (the first %s), none at the server the inventory had under that name: none is published while more than one claims it (fix: give all but one another data.name in their Secrets)",
				count[name], name, e.what)})
			count[name] = 0 // said once
		case count[name] == 0:
		default:
			out = append(out, e)
		}
	}
	return out, left
}

// nameOrServer is what the inventory calls the entry's cluster.
func (e entry) nameOrServer() string { return cmp.Or(e.name, e.server) }

// key sorts an entry: first the one whose server prev published under its name, then by server.
func (e entry) key(had map[string]inventory.Cluster) string {
	if p, ok := had[e.nameOrServer()]; ok && p.Server == e.server {
		return "0" + e.server
	}
	return "1" + e.server
}

// clusterWhat names c in a message.
func clusterWhat(c v1alpha1.Cluster) string {
	if c.Name == "" {
		return "Argo CD's cluster of server " + c.Server
	}
	return fmt.Sprintf("Argo CD's cluster %s (server %s)", c.Name, c.Server)
}

// BuiltInLocal says whether c looks like Argo CD's built-in in-cluster entry, which has no
// Secret (the API does not say; a Secret exactly like it looks the same).
func BuiltInLocal(c v1alpha1.Cluster) bool {
	return c.Server == v1alpha1.KubernetesInternalAPIServerAddr && c.Name == "in-cluster" &&
		len(c.Labels) == 0 && len(c.Annotations) == 0 && c.Project == ""
}
