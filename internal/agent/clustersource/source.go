package clustersource

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/clustersecrets"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
)

// Modes of --inventory-from.
const (
	FromSecrets = "secrets"
	FromArgoCD  = "argocd"
)

// Source is where the clusters are read from.
type Source interface {
	// Read is the inventory now and what it left out. prev is the inventory published
	// before (nil: none): a source that cannot tell "no clusters" from "not allowed to see
	// them" refuses an empty answer when there were some, and one that cannot tell a
	// Secret's age or name decides ties as prev did.
	Read(ctx context.Context, prev *inventory.Inventory) (*inventory.Inventory, []clustersecrets.Omission, error)
	// Registered re-checks, live (not from a cache), whether a cluster of that inventory
	// name is registered: the last proof asked for before its child is deleted.
	Registered(ctx context.Context, cluster string) (bool, error)
	// Secrets are the cluster Secrets (their name, server and project at least), for a
	// per-cluster job hook, which reads its cluster's Secret.
	Secrets(ctx context.Context) ([]*corev1.Secret, error)
	// Poll is how often to read again; 0 when a watch says when.
	Poll() time.Duration
}

// registered says whether one of secrets is the cluster an inventory calls cluster (by its
// name, or by its server when it has none).
func registered(secrets []corev1.Secret, cluster string) bool {
	for _, s := range secrets {
		if cluster != "" && (string(s.Data["name"]) == cluster || (len(s.Data["name"]) == 0 && string(s.Data["server"]) == cluster)) {
			return true
		}
	}
	return false
}
