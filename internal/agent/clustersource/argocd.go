package clustersource

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/clustersecrets"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
)

// Lister lists argocd-server's clusters and answers what its token may do (argoapi.Client).
type Lister interface {
	Clusters(ctx context.Context) ([]v1alpha1.Cluster, error)
	CanI(ctx context.Context, resource, action, object string) (bool, error)
}

// argoSource reads argocd-server's cluster API.
type argoSource struct {
	api       Lister
	kube      kubernetes.Interface
	namespace string
	poll      time.Duration
}

// ArgoCD is the source of argocd-server's clusters, read every poll; the cluster Secrets
// of namespace are listed only for a per-cluster job hook.
func ArgoCD(api Lister, kube kubernetes.Interface, namespace string, poll time.Duration) Source {
	return argoSource{api: api, kube: kube, namespace: namespace, poll: poll}
}

// errNoneListed: argocd-server lists no cluster at all (not even its built-in in-cluster
// entry) to an account not allowed to get any; it cannot tell that from none registered.
var errNoneListed = errors.New("argocd-server listed no cluster, and the inventory had some: its token's account may not get them, and the inventory is kept as it was (fix: p, <the account's role>, clusters, get, *, allow in argocd-rbac-cm; to remove every cluster, delete them one by one)")

// ErrUnproven: a removal's last check could not prove the cluster gone; the child stays
// and the reason is said.
var ErrUnproven = errors.New("removal not proven")

// errNotEvery: argocd-server lists only the clusters the account may get, so one allowed
// some but not all would see the others as deleted, and remove their children.
var errNotEvery = errors.New("the Argo CD account of --argocd-token-file may not get every cluster: those it may not see would look deleted, and their children be removed, so the inventory is kept as it was (fix: p, <the account's role>, clusters, get, *, allow in argocd-rbac-cm)")

// every lists argocd-server's clusters, once argocd-server said the account may get them all.
func (s argoSource) every(ctx context.Context) ([]v1alpha1.Cluster, error) {
	all, err := s.api.CanI(ctx, "clusters", "get", "*")
	if err != nil {
		return nil, err
	}
	if !all {
		return nil, errNotEvery
	}
	return s.api.Clusters(ctx)
}

func (s argoSource) Read(ctx context.Context, prev *inventory.Inventory) (*inventory.Inventory, []clustersecrets.Omission, error) {
	clusters, err := s.every(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(clusters) == 0 && prev != nil && len(prev.Clusters) > 0 {
		return nil, nil, errNoneListed
	}
	inv, left := clustersecrets.FromArgoCD(clusters, prev)
	return inv, left, nil
}

// Registered never proves a cluster gone: argocd-server also leaves out a cluster whose
// Secret it cannot read (a config that does not parse) and one a deny rule hides from the
// account, and says neither. A cluster it lists is registered; one it does not is
// ErrUnproven, and its child stays.
func (s argoSource) Registered(ctx context.Context, cluster string) (bool, error) {
	clusters, err := s.every(ctx)
	if err != nil {
		return false, fmt.Errorf("re-check Argo CD's clusters before a removal: %w", err)
	}
	for _, c := range clusters {
		if cluster != "" && !clustersecrets.BuiltInLocal(c) && (c.Name == cluster || (c.Name == "" && c.Server == cluster)) {
			return true, nil
		}
	}
	return false, fmt.Errorf("cluster %s is not in argocd-server's list, but with --inventory-from %s the agent cannot tell a deleted cluster from one argocd-server hides (a Secret it cannot read, a deny rule), so its child is kept (fix: once the cluster is really gone, delete the child Application yourself; or run the agent with --inventory-from %s): %w",
		cluster, FromArgoCD, FromSecrets, ErrUnproven)
}

// Secrets lists the cluster Secrets live: only a per-cluster job hook asks, and only an
// installation that runs them grants list on Secrets.
func (s argoSource) Secrets(ctx context.Context) ([]*corev1.Secret, error) {
	list, err := s.kube.CoreV1().Secrets(s.namespace).List(ctx, metav1.ListOptions{LabelSelector: contract.ClusterSecretSelector})
	if apierrors.IsForbidden(err) {
		return nil, errors.New("a per-cluster job hook reads its cluster's Secret, and the agent may not list Secrets (--inventory-from argocd; fix: grant the agent list on secrets in Argo CD's namespace, docs/security.md \"Least privilege\", or make the hook per phase)")
	}
	if err != nil {
		return nil, fmt.Errorf("list cluster secrets: %w", err)
	}
	out := make([]*corev1.Secret, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

func (s argoSource) Poll() time.Duration { return s.poll }
