package jobhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// clusterClients reach the clusters job hooks run in: the control cluster (the agent's own
// client and namespace) for a per-phase hook; for a per-cluster one, the run's cluster,
// once the child's AppProject permits a Job there, with Argo CD's credentials from its
// cluster Secret, read by a direct GET for that call (never from the agent's informers,
// which drop them), never kept, logged or told.
type clusterClients struct {
	kube      kubernetes.Interface
	namespace string // the agent's (Argo CD's): per-phase Jobs, AppProjects, cluster Secrets
	argo      argoclient.Interface
	// secretName is the name of the cluster Secret of a server (from the trimmed cache).
	secretName func(server string) (string, error)
	// ownName is the name a server's cluster Secret gives the cluster ("" when none), and
	// whether it has one Secret; nil: the target's cluster name is the Secret's own.
	ownName func(server string) (string, bool)
	// projectClusters are the clusters scoped to a project (AppProject's
	// permitOnlyProjectScopedClusters).
	projectClusters func(project string) ([]*v1alpha1.Cluster, error)
	newClient       func(*rest.Config) (kubernetes.Interface, error)
	log             *slog.Logger
}

// newClients are the clients of the clusters c reaches.
func newClients(c hooks.Clusters) clusterClients {
	j := clusterClients{kube: c.Kube, namespace: c.Namespace, argo: c.Argo, secretName: c.SecretName, ownName: c.OwnName,
		projectClusters: c.ProjectClusters, log: c.Log}
	j.newClient = func(c *rest.Config) (kubernetes.Interface, error) { return kubernetes.NewForConfig(c) }
	if j.log == nil {
		j.log = slog.New(slog.DiscardHandler)
	}
	return j
}

// Control is the agent's own client and namespace.
func (j clusterClients) Control() (kubernetes.Interface, string) { return j.kube, j.namespace }

// Cluster is a client of t's cluster for one call: the child's AppProject (read now) must
// permit a batch/Job at t's server and namespace, and each object of reads there; the
// in-cluster server is the agent's own client; any other is built from its cluster
// Secret, read now.
func (j clusterClients) Cluster(ctx context.Context, t hooks.Target, reads ...objectRef) (kubernetes.Interface, error) {
	if j.argo == nil || j.secretName == nil {
		return nil, errors.New("per-cluster job hooks are not enabled in this agent")
	}
	if t.Project == "" {
		t.Project = "default" // as Argo CD reads an Application without one
	}
	proj, err := j.argo.ArgoprojV1alpha1().AppProjects(j.namespace).Get(ctx, t.Project, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read AppProject %s for the hook's Job in %s: %w", t.Project, t, err)
	}
	if err := jobPermitted(proj, t, j.destName(t), j.projectClusters, reads...); err != nil {
		return nil, err
	}
	if t.Server == v1alpha1.KubernetesInternalAPIServerAddr {
		j.log.Debug("hook job cluster client", "cluster", t.Cluster, "server", t.Server, "auth", "agent")
		return j.kube, nil
	}
	return j.remote(ctx, t)
}

// destName is the cluster name Argo CD matches t's destination by: its cluster Secret's
// own name — "" for a nameless Secret, which the inventory calls by its server URL (so a
// destination name: '*' must not match it) — else (no Secret: in-cluster) t's cluster.
func (j clusterClients) destName(t hooks.Target) string {
	if j.ownName != nil {
		if name, ok := j.ownName(t.Server); ok {
			return name
		}
	}
	return t.Cluster
}

// remote builds the client of t's cluster from its cluster Secret, read now.
func (j clusterClients) remote(ctx context.Context, t hooks.Target) (kubernetes.Interface, error) {
	name, err := j.secretName(t.Server)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", t.Cluster, err)
	}
	s, err := j.kube.CoreV1().Secrets(j.namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read cluster Secret %s/%s of cluster %s: %w", j.namespace, name, t.Cluster, err)
	}
	cfg, auth, err := clusterRESTConfig(s, t)
	if err != nil {
		return nil, err
	}
	kube, err := j.newClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster Secret %s/%s of cluster %s: its tlsClientConfig makes no client (fix: check caData, certData and keyData are PEM)", j.namespace, name, t.Cluster)
	}
	j.log.Debug("hook job cluster client", "cluster", t.Cluster, "server", t.Server, "auth", auth)
	return kube, nil
}
