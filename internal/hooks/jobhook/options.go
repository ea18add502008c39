package jobhook

import (
	"flag"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// Options are what the agent lets job hooks do. The agent hands them to its runner
// (hooks.Limits.Kinds); the clusters the Jobs go to are the runner's (hooks.Clusters),
// without which job hooks are refused.
type Options struct {
	// ServiceAccount is the service account job hook pods run as, without a token mounted
	// (--job-service-account; default contract.DefaultJobServiceAccount).
	ServiceAccount string
	// Namespace is where a per-phase hook's Job goes on the control cluster when its
	// job.namespace is empty (--job-namespace; "": the agent's own namespace). Per-cluster
	// Jobs keep the child's destination namespace.
	Namespace string
	// Poll is the time between two reads of a Job while waiting (default 2s).
	Poll time.Duration
	// clients replace the runner's clusters (tests).
	clients clients
}

// BindFlags registers --job-service-account and --job-namespace.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.ServiceAccount, "job-service-account", contract.DefaultJobServiceAccount, "service account job hook pods run as (in the Job's namespace; no token mounted)")
	fs.StringVar(&o.Namespace, "job-namespace", "", "namespace of a per-phase job hook's Job when its job.namespace is empty, e.g. one labelled for Pod Security restricted (default: --namespace; per-cluster Jobs go to the child's destination namespace)")
}

// options are the runner's job options, defaults filled, and the clients of the clusters
// its Jobs go to (nil: none, job hooks are refused).
func options(r *hooks.Runner) Options {
	o, _ := hooks.OptionsOf[Options](r)
	if o.ServiceAccount == "" {
		o.ServiceAccount = contract.DefaultJobServiceAccount
	}
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.clients == nil {
		if c, ok := r.Clusters(); ok {
			o.clients = newClients(c)
		}
	}
	return o
}
