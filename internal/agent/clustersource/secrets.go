package clustersource

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/clustersecrets"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
)

// secretSource reads the cluster Secrets: from the informer's cache (cached), live for
// the last check before a delete.
type secretSource struct {
	cached    corelisters.SecretNamespaceLister
	kube      kubernetes.Interface
	namespace string
}

// Secrets is the source of the cluster Secrets of namespace, cached by the agent's
// informer (which keeps only their name, server and project, and labels and annotations).
func Secrets(cached corelisters.SecretNamespaceLister, kube kubernetes.Interface, namespace string) Source {
	return secretSource{cached: cached, kube: kube, namespace: namespace}
}

func (s secretSource) Read(context.Context, *inventory.Inventory) (*inventory.Inventory, []clustersecrets.Omission, error) {
	secrets, err := s.cached.List(labels.Everything())
	if err != nil {
		return nil, nil, fmt.Errorf("list cluster secrets: %w", err)
	}
	inv, left := clustersecrets.Read(secrets)
	return inv, left, nil
}

func (s secretSource) Registered(ctx context.Context, cluster string) (bool, error) {
	list, err := s.kube.CoreV1().Secrets(s.namespace).List(ctx, metav1.ListOptions{LabelSelector: contract.ClusterSecretSelector})
	if err != nil {
		return false, fmt.Errorf("re-check cluster secrets before a removal: %w", err)
	}
	return registered(list.Items, cluster), nil
}

func (s secretSource) Secrets(context.Context) ([]*corev1.Secret, error) {
	list, err := s.cached.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("list cluster secrets: %w", err)
	}
	return list, nil
}

func (secretSource) Poll() time.Duration { return 0 }
