// Command agent drives cmp-phase rollouts: it publishes the cluster inventory, runs the
// phase engine for every plan ConfigMap the parents render, writes the state ConfigMaps,
// bumps each parent's PHASE_GEN so Argo CD re-renders it, and publishes Events on the
// parents. It watches through trimmed informers, waits on deadlines through a work queue,
// and acts only while it holds the leader Lease (one agent per repo-server replica runs by
// default; the others stand by).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/cmp-phase/cmp-phase/internal/agent"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/logging"
)

// options are the agent's flags; defaults are set in parse.
type options struct {
	agent       agent.Options
	kubeconfig  string
	qps         float64 // client-side rate limit of API requests
	burst       int
	logLevel    string
	metricsAddr string
	election    election
}

// election configures leader election on a Lease.
type election struct {
	enabled       bool
	lease         string
	identity      string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.agent.Namespace, "namespace", contract.DefaultNamespace, "namespace of the Applications, cluster Secrets and cmp-phase ConfigMaps")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig (default: in-cluster)")
	fs.Float64Var(&o.qps, "kube-api-qps", 50, "requests per second to the API server, sustained (client-go's 5 made every phase wait on the agent's own throttle)")
	fs.IntVar(&o.burst, "kube-api-burst", 100, "requests to the API server in a burst")
	fs.DurationVar(&o.agent.Resync, "resync", 5*time.Minute, "reconcile every rollout at least this often")
	fs.DurationVar(&o.agent.ConfirmAfter, "confirm-after", 30*time.Second, "ask again for a parent re-render not seen after this long")
	fs.DurationVar(&o.agent.RemovalGrace, "removal-grace", 10*time.Minute, "how long a cluster whose Secret is gone keeps its children before they are removed (kept in the inventory ConfigMap)")
	fs.BoolVar(&o.agent.HardRefresh, "hard-refresh-fallback", true, "when asking again, also hard-refresh the parent")
	fs.IntVar(&o.agent.Workers, "workers", 2, "rollouts reconciled at once")
	fs.StringVar(&o.agent.Selector, "rollout-selector", "", "label selector over plan ConfigMaps: drive only these rollouts (sharding)")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.metricsAddr, "metrics-addr", ":9402", "serve Prometheus metrics on this address at /metrics (empty: off)")
	fs.Func("hook-command-dir", "a directory command hooks may run executables from (repeatable; none: command hooks are refused)", func(v string) error {
		if !filepath.IsAbs(v) {
			return fmt.Errorf("%q is not an absolute path", v)
		}
		o.agent.Hooks.CommandDirs = append(o.agent.Hooks.CommandDirs, v)
		return nil
	})
	fs.BoolVar(&o.agent.Hooks.AllowPrivate, "hook-allow-private", false, "let http hooks reach loopback and private addresses (link-local and metadata stay refused)")
	fs.Func("hook-pass-env", "a variable of the agent's environment command hooks may see (repeatable)", func(v string) error {
		o.agent.Hooks.PassEnv = append(o.agent.Hooks.PassEnv, v)
		return nil
	})
	fs.StringVar(&o.agent.SecretNamespace, "secret-namespace", "", "where hook secret references are read (default: --namespace)")
	fs.IntVar(&o.agent.HooksPerHost, "hooks-per-host", 4, "http hooks running at once against one host")
	fs.IntVar(&o.agent.MaxHooks, "max-hooks-per-phase", 5, "pre- and post-hooks running at once in a phase")
	fs.IntVar(&o.agent.MaxChecks, "max-checks-per-phase", 10, "checks running at once in a phase")
	fs.BoolVar(&o.election.enabled, "leader-elect", true, "act only while holding the leader Lease")
	fs.StringVar(&o.election.lease, "lease-name", "cmp-phase-agent", "name of the leader Lease (in --namespace)")
	fs.StringVar(&o.election.identity, "identity", "", "leader identity (default: hostname and a random suffix)")
	fs.DurationVar(&o.election.leaseDuration, "lease-duration", 10*time.Second, "how long a leader's Lease lasts without renewal (a stand-by takes over within about this plus two --retry-period)")
	fs.DurationVar(&o.election.renewDeadline, "renew-deadline", 7*time.Second, "how long the leader retries renewing before it gives up")
	fs.DurationVar(&o.election.retryPeriod, "retry-period", 2*time.Second, "how often candidates try to acquire or renew")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (fix: the agent takes flags only; see -h)", fs.Arg(0))
	}
	if _, err := labels.Parse(o.agent.Selector); err != nil {
		return o, fmt.Errorf("--rollout-selector: %w (fix: e.g. %s)", err, contract.RolloutSelector("guestbook"))
	}
	if e := o.election; e.enabled && !(e.retryPeriod < e.renewDeadline && e.renewDeadline < e.leaseDuration) {
		return o, fmt.Errorf("--retry-period < --renew-deadline < --lease-duration must hold (fix: e.g. 2s, 7s, 10s)")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(stderr, "agent:", err)
		}
		return 2
	}
	log := logging.New(stderr, logging.ParseLevel(o.logLevel))
	if err := start(ctx, o, log); err != nil {
		log.Error("agent failed", "error", err)
		return 1
	}
	return 0
}
