package jobhook

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// jobCluster is the client and namespace a job run's Job goes to: the control cluster and
// job.namespace, else --job-namespace (o.Namespace), else the agent's for a per-phase run; for a per-cluster run (c.Cluster set)
// the run's cluster and job.namespace or the child's destination namespace, through
// clients.Cluster, which checks the child's AppProject (for the Job, and for what the run
// reads there: execNewPod's workload). The target is nil for the control
// cluster.
func jobCluster(ctx context.Context, o Options, c hooks.Call, h *Block) (kubernetes.Interface, string, *hooks.Target, error) {
	cl := o.clients
	if c.Cluster == "" {
		kube, ns := cl.Control()
		return kube, cmpOr(h.Namespace, cmpOr(o.Namespace, ns)), nil, nil
	}
	if c.Target == nil {
		return nil, "", nil, errors.New("a per-cluster job run without its child's destination (the agent names it; fix: upgrade the agent)")
	}
	t := *c.Target
	t.Namespace = cmpOr(h.Namespace, t.Namespace)
	if t.Namespace == "" {
		return nil, "", nil, fmt.Errorf("child %s has no destination namespace for its Job (fix: set job.namespace)", c.Cluster)
	}
	if len(validation.IsDNS1123Label(t.Namespace)) > 0 {
		return nil, "", nil, fmt.Errorf("job.namespace %q for cluster %s is not a namespace name (fix: template it to a DNS label)", t.Namespace, t.Cluster)
	}
	kube, err := cl.Cluster(ctx, t, h.reads()...)
	if err != nil {
		return nil, "", nil, err
	}
	return kube, t.Namespace, &t, nil
}

// refClient is the client of the cluster a Job ref is in.
func refClient(ctx context.Context, cl clients, ref JobRef) (kubernetes.Interface, error) {
	if ref.Target == nil {
		kube, _ := cl.Control()
		return kube, nil
	}
	return cl.Cluster(ctx, *ref.Target)
}

// inCluster is err's message, naming the cluster of a per-cluster run (t set).
func inCluster(t *hooks.Target, err error) string {
	if t == nil {
		return err.Error()
	}
	return "in cluster " + t.Cluster + ": " + err.Error()
}
