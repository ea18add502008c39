package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/cmp-phase/cmp-phase/internal/cmpserver"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/kubeclient"
	"github.com/cmp-phase/cmp-phase/internal/logging"
	"github.com/cmp-phase/cmp-phase/internal/telemetry"
)

type serveOptions struct {
	socketDir      string
	pluginName     string
	workDir        string
	stateNamespace string
	kubeconfig     string
	staleWait      time.Duration
	logLevel       string
	metricsAddr    string
}

func runServe(ctx context.Context, args []string, stderr io.Writer) int {
	var o serveOptions
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.socketDir, "socket-dir", envOr(contract.EnvPluginSocketDir, contract.DefaultPluginSocketDir), "directory the repo-server dials plugins in")
	fs.StringVar(&o.pluginName, "plugin-name", contract.PluginName, "<name>-<version> the parent Application names")
	fs.StringVar(&o.workDir, "work-dir", os.TempDir(), "where received repositories are unpacked")
	fs.StringVar(&o.stateNamespace, "state-namespace", envOr(contract.EnvStateNamespace, contract.DefaultNamespace), "namespace of the state, inventory and plan ConfigMaps")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig (default: in-cluster)")
	fs.DurationVar(&o.staleWait, "stale-wait", 10*time.Second, "how long a render waits for the state to reach "+contract.EnvPhaseGen)
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at /metrics and /healthz on this address, e.g. :9403 (empty: off)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := logging.New(os.Stderr, logging.ParseLevel(o.logLevel))
	klog.SetSlogLogger(log) // client-go's own lines in the same format
	log.Info("sidecar starting", "version", telemetry.Version())
	if err := serve(ctx, o, log); err != nil {
		log.Error("serve failed", "error", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, o serveOptions, log *slog.Logger) error {
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
	opts := cmpserver.Options{WorkDir: o.workDir, StateNamespace: o.stateNamespace, StaleWait: o.staleWait}
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
