package agent

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
)

// excludedAnnotations are Argo CD's and kubectl's own bookkeeping on cluster Secrets; like
// the ApplicationSet cluster generator we never expose them (the last-applied configuration
// can hold the Secret's credentials).
var excludedAnnotations = []string{
	contract.AnnotationRefresh, contract.AnnotationHydrate, contract.AnnotationInstance,
	contract.AnnotationInstallationID, corev1.LastAppliedConfigAnnotation,
}

// Inventory turns Argo CD cluster Secrets into the inventory the renderer reads: name,
// server, project, labels and annotations — never the config (credentials).
func Inventory(secrets []*corev1.Secret) *inventory.Inventory {
	inv := &inventory.Inventory{Clusters: []inventory.Cluster{}}
	for _, s := range secrets {
		if s.Labels[contract.LabelSecretType] != contract.SecretTypeCluster || len(s.Data["server"]) == 0 {
			continue
		}
		name := string(s.Data["name"])
		if name == "" {
			name = string(s.Data["server"])
		}
		ann := maps.Clone(s.Annotations)
		for _, k := range excludedAnnotations {
			delete(ann, k)
		}
		if len(ann) == 0 {
			ann = nil
		}
		inv.Clusters = append(inv.Clusters, inventory.Cluster{
			Name: name, Server: string(s.Data["server"]), Project: string(s.Data["project"]),
			Labels: maps.Clone(s.Labels), Annotations: ann,
		})
	}
	slices.SortFunc(inv.Clusters, func(a, b inventory.Cluster) int { return strings.Compare(a.Name, b.Name) })
	return inv
}
