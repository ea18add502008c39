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

	"github.com/cmp-phase/cmp-phase/internal/cmpserver"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/kubeclient"
	"github.com/cmp-phase/cmp-phase/internal/logging"
)

type serveOptions struct {
	socketDir      string
	pluginName     string
	workDir        string
	stateNamespace string
	kubeconfig     string
	staleWait      time.Duration
	logLevel       string
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
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := logging.New(os.Stderr, logging.ParseLevel(o.logLevel))
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
	srv := cmpserver.New(cmpserver.Options{WorkDir: o.workDir, StateNamespace: o.stateNamespace, StaleWait: o.staleWait}, store, log)
	return cmpserver.Serve(ctx, o.socketDir, o.pluginName, srv)
}
