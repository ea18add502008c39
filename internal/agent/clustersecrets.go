package agent

import (
	"errors"
	"fmt"
	"slices"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// clusterOwnName is the name a server's cluster Secret itself gives the cluster (its data
// key name; "" when it has none — the inventory then calls the cluster by its server, but
// Argo CD matches a destination's name against the Secret's own), and whether the one
// cluster Secret of server was found (not: the in-cluster server without a Secret, or no
// single Secret, which clusterSecretName refuses).
func (a *Agent) clusterOwnName(server string) (string, bool) {
	if a.caches == nil || a.caches.secrets == nil {
		return "", false
	}
	secrets, err := a.caches.secrets.List(labels.Everything())
	if err != nil {
		return "", false
	}
	var names []string
	for _, s := range secrets {
		if s.Labels[contract.LabelSecretType] == contract.SecretTypeCluster && string(s.Data[contract.ClusterSecretServer]) == server {
			names = append(names, string(s.Data[contract.ClusterSecretName]))
		}
	}
	if len(names) != 1 {
		return "", false
	}
	return names[0], true
}

// clusterSecretName is the name of the one cluster Secret whose server is server, from the
// trimmed cache (which holds no credentials): the caller then reads that Secret directly.
// None, or several (Argo CD would not know which to use either), is an error.
func (a *Agent) clusterSecretName(server string) (string, error) {
	if a.caches == nil || a.caches.secrets == nil {
		return "", errors.New("the agent has not read the cluster Secrets yet")
	}
	secrets, err := a.caches.secrets.List(labels.Everything())
	if err != nil {
		return "", fmt.Errorf("list cluster Secrets: %w", err)
	}
	var names []string
	for _, s := range secrets {
		if s.Labels[contract.LabelSecretType] == contract.SecretTypeCluster && string(s.Data[contract.ClusterSecretServer]) == server {
			names = append(names, s.Name)
		}
	}
	slices.Sort(names)
	switch len(names) {
	case 0:
		return "", fmt.Errorf("no cluster Secret names server %s (fix: register the cluster with Argo CD)", server)
	case 1:
		return names[0], nil
	}
	return "", fmt.Errorf("cluster Secrets %v all name server %s (fix: keep one)", names, server)
}

// projectClusters are the clusters of the inventory scoped to project (their Secret's
// project), for an AppProject that permits only those.
func (a *Agent) projectClusters(project string) ([]*v1alpha1.Cluster, error) {
	inv := a.inventory()
	if inv == nil {
		return nil, errors.New("no cluster inventory yet")
	}
	var out []*v1alpha1.Cluster
	for _, c := range inv.Clusters {
		if c.Project == project {
			out = append(out, &v1alpha1.Cluster{Name: c.Name, Server: c.Server, Project: c.Project})
		}
	}
	return out, nil
}
