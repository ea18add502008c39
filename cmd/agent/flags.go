package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"

	"github.com/cmp-phase/cmp-phase/internal/agent"
	"github.com/cmp-phase/cmp-phase/internal/agent/clustersource"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks/all"
	"github.com/cmp-phase/cmp-phase/internal/startup/kubeclient"
)

// connection is how the agent reaches the API server.
type connection struct {
	kubeconfig string
	qps        float64 // client-side rate limit of API requests
	burst      int
}

// BindFlags registers --kubeconfig, --kube-api-qps and --kube-api-burst.
func (c *connection) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig (default: in-cluster)")
	fs.Float64Var(&c.qps, "kube-api-qps", 50, "requests per second to the API server, sustained (client-go's 5 made every phase wait on the agent's own throttle)")
	fs.IntVar(&c.burst, "kube-api-burst", 100, "requests to the API server in a burst")
}

// config is the client configuration, rate limits included.
func (c *connection) config() (*rest.Config, error) {
	cfg, err := kubeclient.Config(c.kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = float32(c.qps), c.burst
	return cfg, nil
}

// rollouts are the flags of how the agent drives rollouts.
type rollouts struct{ o *agent.Options }

// BindFlags registers --namespace, --resync, --confirm-after, --removal-grace,
// --hard-refresh-fallback, --poll-parents, --workers, --rollout-selector, --fleet-configmap,
// --inventory-from and --inventory-poll.
func (r rollouts) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&r.o.Namespace, "namespace", contract.DefaultNamespace, "namespace of the Applications, cluster Secrets and cmp-phase ConfigMaps")
	fs.DurationVar(&r.o.Resync, "resync", 5*time.Minute, "reconcile every rollout at least this often")
	fs.DurationVar(&r.o.ConfirmAfter, "confirm-after", 30*time.Second, "ask again for a parent re-render not seen after this long")
	fs.DurationVar(&r.o.RemovalGrace, "removal-grace", 10*time.Minute, "how long a cluster whose Secret is gone keeps its children before they are removed (kept in the inventory ConfigMap)")
	fs.BoolVar(&r.o.HardRefresh, "hard-refresh-fallback", true, "when asking again, also hard-refresh the parent")
	fs.DurationVar(&r.o.PollParents, "poll-parents", 30*time.Second, "ask Argo CD to refresh the parents this often (one per repository and revision, in turn), so a commit is seen without a webhook (0: Argo CD's own polling only)")
	fs.IntVar(&r.o.Workers, "workers", 2, "rollouts reconciled at once")
	fs.StringVar(&r.o.Selector, "rollout-selector", "", "label selector over plan ConfigMaps: drive only these rollouts (sharding)")
	fs.StringVar(&r.o.FleetConfigMap, "fleet-configmap", contract.FleetConfigMap, "ConfigMap whose stop-all key pauses every rollout this agent drives (cmp-phase stop-all)")
	fs.StringVar(&r.o.InventoryFrom, "inventory-from", clustersource.FromSecrets, "where the clusters are read from: secrets (Argo CD's cluster Secrets, watched: list and watch on Secrets) or argocd (argocd-server's cluster API with --argocd-token-file, whose account may get clusters: no list or watch on Secrets)")
	fs.DurationVar(&r.o.InventoryPoll, "inventory-poll", 30*time.Second, "with --inventory-from argocd, how often the clusters are read")
}

func (r rollouts) validate() error {
	if r.o.PollParents < 0 {
		return fmt.Errorf("--poll-parents %s is negative (fix: a duration like 15s, or 0 to leave polling to Argo CD)", r.o.PollParents)
	}
	if r.o.InventoryFrom != clustersource.FromSecrets && r.o.InventoryFrom != clustersource.FromArgoCD {
		return fmt.Errorf("--inventory-from %q is neither %s nor %s (fix: one of them)", r.o.InventoryFrom, clustersource.FromSecrets, clustersource.FromArgoCD)
	}
	if r.o.InventoryPoll <= 0 {
		return fmt.Errorf("--inventory-poll %s is not positive (fix: a duration like 30s)", r.o.InventoryPoll)
	}
	if _, err := labels.Parse(r.o.Selector); err != nil {
		return fmt.Errorf("--rollout-selector: %w (fix: e.g. %s)", err, contract.RolloutSelector("guestbook"))
	}
	return nil
}

// hookFlags are the flags of what hooks and checks may do.
type hookFlags struct{ o *agent.Options }

// BindFlags registers --hook-command-dir, --hook-allow-private, --hook-pass-env,
// --secret-namespace, --hooks-per-host, --job-service-account, --job-namespace and --prometheus-address.
func (h hookFlags) BindFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&h.o.Hooks.AllowPrivate, "hook-allow-private", false, "let http hooks reach loopback and private addresses (link-local and metadata stay refused)")
	fs.StringVar(&h.o.SecretNamespace, "secret-namespace", "", "where hook secret references are read (default: --namespace)")
	fs.IntVar(&h.o.HooksPerHost, "hooks-per-host", 4, "http hooks running at once against one host")
	gofs := flag.NewFlagSet("hooks", flag.ContinueOnError)
	h.o.Hooks.Kinds = all.BindFlags(gofs) // each kind's own: --hook-command-dir, --hook-pass-env, --job-service-account, --job-namespace, --prometheus-address
	fs.AddGoFlagSet(gofs)
}

// limitFlags are the installation's limits on hooks (spec.Limits), seed 000's by default;
// `cmp-phase validate` takes the first four under the same names.
type limitFlags struct{ o *agent.Options }

// BindFlags registers --max-command-timeout, --max-http-timeout, --max-env-vars,
// --max-headers, --max-response-body, --max-hooks-per-phase and --max-checks-per-phase.
func (l limitFlags) BindFlags(fs *pflag.FlagSet) {
	gofs := flag.NewFlagSet("limits", flag.ContinueOnError)
	l.o.Limits.BindFlags(gofs)
	l.o.Limits.BindRunFlags(gofs)
	fs.AddGoFlagSet(gofs)
}

func (l limitFlags) validate() error { return l.o.Limits.Validate() }

// election configures leader election on a Lease.
type election struct {
	enabled       bool
	lease         string
	identity      string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration
}

// BindFlags registers --leader-elect, --lease-name, --identity, --lease-duration,
// --renew-deadline and --retry-period.
func (e *election) BindFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&e.enabled, "leader-elect", true, "act only while holding the leader Lease")
	fs.StringVar(&e.lease, "lease-name", "cmp-phase-agent", "name of the leader Lease (in --namespace)")
	fs.StringVar(&e.identity, "identity", "", "leader identity (default: hostname and a random suffix)")
	fs.DurationVar(&e.leaseDuration, "lease-duration", 10*time.Second, "how long a leader's Lease lasts without renewal (a stand-by takes over within about this plus two --retry-period)")
	fs.DurationVar(&e.renewDeadline, "renew-deadline", 7*time.Second, "how long the leader retries renewing before it gives up")
	fs.DurationVar(&e.retryPeriod, "retry-period", 2*time.Second, "how often candidates try to acquire or renew")
}

func (e *election) validate() error {
	if e.enabled && !(e.retryPeriod < e.renewDeadline && e.renewDeadline < e.leaseDuration) {
		return fmt.Errorf("--retry-period < --renew-deadline < --lease-duration must hold (fix: e.g. 2s, 7s, 10s)")
	}
	return nil
}

// observability is what the agent tells: its logs and its metrics.
type observability struct {
	logLevel    string
	metricsAddr string
	profiling   bool
}

// BindFlags registers --log-level, --metrics-addr and --profiling.
func (o *observability) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.metricsAddr, "metrics-addr", ":9402", "serve Prometheus metrics on this address at /metrics (empty: off)")
	fs.BoolVar(&o.profiling, "profiling", false, "also serve Go's /debug/pprof on --metrics-addr (heap and CPU profiles; keep that address private)")
}
