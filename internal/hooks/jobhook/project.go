package jobhook

import (
	"fmt"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// jobKind is what a job hook creates, as an AppProject names it.
var jobKind = schema.GroupKind{Group: "batch", Kind: "Job"}

// objectRef is an object a run reads in its Job's namespace (execNewPod's workload), which
// the child's AppProject must permit as it would let the child deploy it there; Why says
// who reads it, for the error.
type objectRef struct {
	Kind      schema.GroupKind
	Name, Why string
}

// jobPermitted says whether proj lets a per-cluster job hook run its Job at t, as Argo CD
// would let the child deploy one there: the destination (t's server or name — the cluster
// Secret's own name, "" when it has none, not the inventory's — and the Job's namespace, with Argo CD's globs and deny patterns, and project-scoped clusters when
// the project permits only those) and the kind batch/Job (namespaceResourceWhitelist and
// Blacklist), and each object the run reads there (reads: its kind and name, the same
// lists). It asks AppProject's own methods; clusters lists the project's scoped
// clusters. Nil when permitted; else an error naming the project, the destination and the
// fix.
func jobPermitted(proj *v1alpha1.AppProject, t hooks.Target, name string, clusters func(string) ([]*v1alpha1.Cluster, error), reads ...objectRef) error {
	ok, err := proj.IsDestinationPermitted(&v1alpha1.Cluster{Name: name, Server: t.Server}, t.Namespace, clusters)
	if err != nil {
		return fmt.Errorf("AppProject %s: %w", proj.Name, err)
	}
	if !ok {
		return fmt.Errorf("AppProject %s does not permit destination server %s (cluster %s) namespace %s for the hook's Job (fix: add it to the project's destinations, or set job.namespace to a namespace it permits there)",
			proj.Name, t.Server, t.Cluster, t.Namespace)
	}
	if !proj.IsGroupKindNamePermitted(jobKind, "", true) {
		return fmt.Errorf("AppProject %s does not permit batch/Job, which the hook creates in cluster %s (fix: add {group: batch, kind: Job} to its namespaceResourceWhitelist, or remove it from its namespaceResourceBlacklist)",
			proj.Name, t.Cluster)
	}
	for _, o := range reads {
		if !proj.IsGroupKindNamePermitted(o.Kind, o.Name, true) {
			return fmt.Errorf("AppProject %s does not permit %s/%s %s, which %s in cluster %s namespace %s (fix: add {group: %s, kind: %s} to its namespaceResourceWhitelist, or remove it from its namespaceResourceBlacklist)",
				proj.Name, o.Kind.Group, o.Kind.Kind, o.Name, o.Why, t.Cluster, t.Namespace, o.Kind.Group, o.Kind.Kind)
		}
	}
	return nil
}
