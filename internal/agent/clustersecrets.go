package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/agent/clustersource"
	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// clusters is where the agent reads the clusters from (Options.InventoryFrom).
func (a *Agent) clusters() clustersource.Source {
	if a.opts.InventoryFrom == clustersource.FromArgoCD {
		return clustersource.ArgoCD(a.opts.ArgoCD, a.kube, a.opts.Namespace, a.opts.InventoryPoll)
	}
	return clustersource.Secrets(a.caches.secrets, a.kube, a.opts.Namespace)
}

// clusterSecretsOf are the cluster Secrets whose server is server (for per-cluster job
// hooks; the hooks' calls carry no context, so the read is bounded here).
func (a *Agent) clusterSecretsOf(server string) ([]*corev1.Secret, error) {
	if a.caches == nil || (a.caches.secrets == nil && a.opts.InventoryFrom != clustersource.FromArgoCD) {
		return nil, errors.New("the agent has not read the cluster Secrets yet")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	secrets, err := a.clusters().Secrets(ctx)
	if err != nil {
		return nil, err
	}
	var out []*corev1.Secret
	for _, s := range secrets {
		if s.Labels[contract.LabelSecretType] == contract.SecretTypeCluster && string(s.Data[contract.ClusterSecretServer]) == server {
			out = append(out, s)
		}
	}
	return out, nil
}

// clusterOwnName is the name a server's cluster Secret itself gives the cluster (its data
// key name; "" when it has none — the inventory then calls the cluster by its server, but
// Argo CD matches a destination's name against the Secret's own), and whether the one
// cluster Secret of server was found (not: the in-cluster server without a Secret, or no
// single Secret, which clusterSecretName refuses).
func (a *Agent) clusterOwnName(server string) (string, bool) {
	secrets, err := a.clusterSecretsOf(server)
	if err != nil || len(secrets) != 1 {
		return "", false
	}
	return string(secrets[0].Data[contract.ClusterSecretName]), true
}

// clusterSecretName is the name of the one cluster Secret whose server is server: the
// caller then reads that Secret directly. None, or several (Argo CD would not know which
// to use either), is an error.
func (a *Agent) clusterSecretName(server string) (string, error) {
	secrets, err := a.clusterSecretsOf(server)
	if err != nil {
		return "", err
	}
	var names []string
	for _, s := range secrets {
		names = append(names, s.Name)
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
