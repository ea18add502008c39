package hooks

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// Target is where a per-cluster run of a kind that works in the child's cluster
// (ChildReader) goes: the cluster the run is for, and the child's AppProject that must
// permit the work there.
type Target struct {
	Cluster string // the cluster's name in the inventory (its Argo CD cluster Secret's name)
	Server  string // its API server
	Project string // the child's AppProject (the template's project)
	// Namespace is the child's destination namespace (a kind may have its own say first).
	Namespace string
}

// String names the target in messages: the cluster and namespace, never a credential.
func (t Target) String() string {
	return fmt.Sprintf("cluster %s (%s) namespace %s", t.Cluster, t.Server, t.Namespace)
}

// ChildReader is a kind whose per-cluster runs work in the child's cluster, as the child's
// AppProject permits: the agent renders the child when such a run starts and hands the
// run its Target (Call.Target).
type ChildReader interface {
	ReadsChild() bool
}

// ReadsChild reports whether a per-cluster run of h needs its child's Target.
func ReadsChild(h spec.Hook) bool {
	k, ok := kindOf(h.Type)
	if !ok {
		return false
	}
	c, ok := k.(ChildReader)
	return ok && c.ReadsChild()
}

// Clusters are what the agent lets kinds reach of the clusters Argo CD knows: the control
// cluster (its own client and namespace, where Argo CD's AppProjects and cluster Secrets
// are) and, to reach a managed cluster, Argo CD's API and the inventory's answers about
// cluster Secrets. A kind reads a cluster Secret's credentials itself, for one call.
type Clusters struct {
	Kube      kubernetes.Interface
	Namespace string
	Argo      argoclient.Interface // nil: no managed cluster is reached
	// SecretName is the name of the one cluster Secret of a server (an error when none or
	// several), from a cache that holds no credentials.
	SecretName func(server string) (string, error)
	// OwnName is the name a server's cluster Secret gives the cluster ("" when none), and
	// whether the server has one Secret; nil: the inventory's name is the Secret's own.
	OwnName func(server string) (string, bool)
	// ProjectClusters are the clusters scoped to an AppProject.
	ProjectClusters func(project string) ([]*v1alpha1.Cluster, error)
	Log             *slog.Logger
}

// WithClusters lets the runner's kinds reach clusters through c; it returns r.
func (r *Runner) WithClusters(c Clusters) *Runner {
	r.clusters = &c
	return r
}

// Clusters are what the agent lets kinds reach (WithClusters); false: nothing.
func (r *Runner) Clusters() (Clusters, bool) {
	if r.clusters == nil {
		return Clusters{}, false
	}
	return *r.clusters, true
}

// Cleanup is what a run left behind for the agent to remove once the ledger has
// recorded the run's outcome (removing it earlier could let a new leader, finding neither
// an outcome nor the work, run the hook again).
type Cleanup interface {
	// Clean removes it, within a short deadline of its own; gone already is no error.
	Clean(ctx context.Context, r *Runner) error
	// Describe names it for the agent's log: what it is ("hook job") and key-value pairs,
	// never a credential.
	Describe() (string, []any)
}
