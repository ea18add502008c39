package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/render/cmpserver"
	"github.com/cmp-phase/cmp-phase/internal/startup/kubeclient"
	"github.com/cmp-phase/cmp-phase/internal/startup/logging"
	"github.com/cmp-phase/cmp-phase/internal/telemetry"
)

type serveOptions struct {
	socketDir      string
	pluginName     string
	workDir        string
	stateNamespace string
	kubeconfig     string
	staleWait      time.Duration
	renderTimeout  time.Duration
	renders        int
	logLevel       string
	metricsAddr    string
}

func newServe(a *app) *cobra.Command {
	var o serveOptions
	c := &cobra.Command{
		Use:     "serve",
		GroupID: "plugin",
		Short:   "Serve the CMP gRPC API on <socket-dir>/<plugin-name>.sock (the repo-server sidecar)",
		Long: `Serve Argo CD's Config Management Plugin gRPC API on <socket-dir>/<plugin-name>.sock: the
sidecar of argocd-repo-server. It reads the state, inventory and plan ConfigMaps of
--state-namespace through informers, and renders each parent's children phase by phase.
It runs until SIGTERM.

Exit codes: 0 stopped by a signal; 1 it could not start or serve; 2 bad usage.`,
		Example: `  # as the sidecar runs it
  cmp-phase serve --socket-dir /home/argocd/cmp-server/plugins --state-namespace argocd --metrics-addr :9403`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			log := logging.New(a.errOut, logging.ParseLevel(o.logLevel))
			klog.SetSlogLogger(log) // client-go's own lines in the same format
			log.Info("sidecar starting", "version", telemetry.Version(), "revision", telemetry.Revision())
			if err := serve(a.ctx, o, log); err != nil {
				log.Error("serve failed", "error", err)
				return exitWith(exitFailed)
			}
			return nil
		},
	}
	fs := c.Flags()
	fs.StringVar(&o.socketDir, "socket-dir", envOr(contract.EnvPluginSocketDir, contract.DefaultPluginSocketDir), "directory the repo-server dials plugins in")
	fs.StringVar(&o.pluginName, "plugin-name", contract.PluginName, "<name>-<version> the parent Application names")
	fs.StringVar(&o.workDir, "work-dir", os.TempDir(), "where received repositories are unpacked")
	fs.StringVar(&o.stateNamespace, "state-namespace", envOr(contract.EnvStateNamespace, contract.DefaultNamespace), "namespace of the state, inventory and plan ConfigMaps")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig (default: in-cluster)")
	fs.DurationVar(&o.staleWait, "stale-wait", 10*time.Second, "how long a render waits for the state to reach "+contract.EnvPhaseGen)
	fs.DurationVar(&o.renderTimeout, "render-timeout", cmpserver.DefaultRenderTimeout, "end a render that runs longer (keep it under the application controller's 60 s manifest timeout)")
	fs.IntVar(&o.renders, "renders", cmpserver.DefaultRenders, "how many renders run at once; others wait for a turn")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at /metrics and /healthz on this address, e.g. :9403 (empty: off)")
	stableDefaults(c)
	return c
}

// gcPercent is the sidecar's Go GC target when GOGC is not set. Its live heap is small
// (≈ 25 MiB at 10,000 children) while each new state it decodes is garbage soon: at Go's
// default of 100 the anonymous memory peaked at 115–125 MiB in BenchmarkFleet (10,000
// clusters, 5 shards), at 50 at 87 MiB with the same render times; 25 took it to 76 MiB but
// doubled the render's p50 (docs/performance.md).
const gcPercent = 50

func serve(ctx context.Context, o serveOptions, log *slog.Logger) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	cfg, err := kubeclient.Config(o.kubeconfig)
	if err != nil {
		return err
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("kube client: %w", err)
	}
	store, err := cmpserver.NewInformerStore(ctx, kc, o.stateNamespace)
	if err != nil {
		return err
	}
	if o.renderTimeout <= 0 || o.renders <= 0 {
		return fmt.Errorf("--render-timeout %s and --renders %d must be positive (fix: leave them at their defaults)", o.renderTimeout, o.renders)
	}
	opts := cmpserver.Options{WorkDir: o.workDir, StateNamespace: o.stateNamespace, StaleWait: o.staleWait,
		RenderTimeout: o.renderTimeout, Renders: o.renders}
	if o.metricsAddr != "" {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), telemetry.BuildInfo())
		stop, err := telemetry.Serve(o.metricsAddr, reg, nil, false, log)
		if err != nil {
			return err
		}
		defer stop()
		opts.Metrics = reg
	}
	srv := cmpserver.New(opts, store, log)
	return cmpserver.Serve(ctx, o.socketDir, o.pluginName, srv)
}
