package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// jobClients reach the clusters job hooks run in: the agent's own client for the control
// cluster and for Argo CD's in-cluster server, and for any other cluster a client built
// from Argo CD's credentials in its cluster Secret — read when a run asks, never cached,
// never logged.
type jobClients struct {
	kube      kubernetes.Interface
	namespace string // the agent's (Argo CD's): per-phase Jobs and the cluster Secrets
	// newClient makes a client from a rest.Config (tests replace it).
	newClient func(*rest.Config) (kubernetes.Interface, error)
}

func newJobClients(kube kubernetes.Interface, namespace string) jobClients {
	return jobClients{kube: kube, namespace: namespace, newClient: func(c *rest.Config) (kubernetes.Interface, error) {
		return kubernetes.NewForConfig(c)
	}}
}

// Control is the agent's own client and namespace.
func (j jobClients) Control() (kubernetes.Interface, string) { return j.kube, j.namespace }

// Cluster is a client of the cluster whose API server is server.
func (j jobClients) Cluster(ctx context.Context, server string) (kubernetes.Interface, error) {
	server = strings.TrimRight(server, "/")
	if server == contract.InClusterServer {
		return j.kube, nil
	}
	secrets, err := j.kube.CoreV1().Secrets(j.namespace).List(ctx, metav1.ListOptions{LabelSelector: contract.ClusterSecretSelector})
	if err != nil {
		return nil, fmt.Errorf("listing cluster Secrets: %w", err)
	}
	for i := range secrets.Items {
		s := &secrets.Items[i]
		if strings.TrimRight(string(s.Data["server"]), "/") != server {
			continue
		}
		cfg, err := restConfigOf(s)
		if err != nil {
			return nil, err
		}
		kube, err := j.newClient(cfg)
		if err != nil {
			return nil, fmt.Errorf("client from cluster Secret %s: %w", s.Name, err)
		}
		return kube, nil
	}
	return nil, fmt.Errorf("no Argo CD cluster Secret in %s has server %s", j.namespace, server)
}

// restConfigOf is Argo CD's own client configuration of a cluster Secret (its
// v1alpha1.Cluster's RESTConfig). Errors name the Secret, never its content.
func restConfigOf(s *corev1.Secret) (*rest.Config, error) {
	var cfg v1alpha1.ClusterConfig
	if len(s.Data["config"]) > 0 && json.Unmarshal(s.Data["config"], &cfg) != nil {
		return nil, fmt.Errorf("cluster Secret %s: its config is not Argo CD's cluster config JSON", s.Name)
	}
	c := v1alpha1.Cluster{Server: strings.TrimRight(string(s.Data["server"]), "/"), Name: string(s.Data["name"]), Config: cfg}
	rc, err := c.RESTConfig()
	if err != nil {
		return nil, fmt.Errorf("cluster Secret %s: %w", s.Name, err)
	}
	return rc, nil
}
