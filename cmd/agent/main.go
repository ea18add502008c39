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
	"runtime"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/cmp-phase/cmp-phase/internal/agent"
	"github.com/cmp-phase/cmp-phase/internal/clustersource"
	"github.com/cmp-phase/cmp-phase/internal/logging"
	"github.com/cmp-phase/cmp-phase/internal/telemetry"
)

// options are the agent's flags, by concern; each concern binds its own (flags.go).
type options struct {
	agent    agent.Options // rollouts and hooks
	conn     connection
	election election
	obs      observability
	argoAPI  argoAPI
	ext      extensionFlags // the UI extension's endpoint (extension.go)
	version  bool           // --version: print it and exit
	fromEnv  []string       // flags set from CMP_PHASE_AGENT_<FLAG> (env.go)
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
	o.conn.BindFlags(fs)
	rollouts{&o.agent}.BindFlags(fs)
	hookFlags{&o.agent}.BindFlags(fs)
	limitFlags{&o.agent}.BindFlags(fs)
	o.election.BindFlags(fs)
	o.obs.BindFlags(fs)
	o.argoAPI.BindFlags(fs)
	o.ext.BindFlags(fs)
	fs.BoolVar(&o.version, "version", false, "print the version, VCS revision and Go version, and exit")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.version {
		return o, nil
	}
	var err error
	if o.fromEnv, err = flagsFromEnv(fs); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (fix: the agent takes flags only; see -h)", fs.Arg(0))
	}
	if err := (rollouts{&o.agent}).validate(); err != nil {
		return o, err
	}
	if err := (limitFlags{&o.agent}).validate(); err != nil {
		return o, err
	}
	if err := o.ext.validate(); err != nil {
		return o, err
	}
	if o.agent.ArgoCD, err = o.argoAPI.client(); err != nil {
		return o, err
	}
	if o.agent.InventoryFrom == clustersource.FromArgoCD && o.agent.ArgoCD == nil {
		return o, fmt.Errorf("--inventory-from %s reads argocd-server's clusters (fix: set --argocd-server and --argocd-token-file, or --inventory-from %s)", clustersource.FromArgoCD, clustersource.FromSecrets)
	}
	return o, o.election.validate()
}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(stderr, "agent:", err)
		}
		return 2
	}
	if o.version {
		fmt.Fprintf(os.Stdout, "agent %s (revision %s, %s)\n", telemetry.Version(), telemetry.Revision(), runtime.Version())
		return 0
	}
	log := logging.New(stderr, logging.ParseLevel(o.obs.logLevel))
	klog.SetSlogLogger(log) // client-go's own lines in the same format
	log.Info("agent starting", "version", telemetry.Version(), "flagsFromEnvironment", o.fromEnv)
	if err := start(ctx, o, log); err != nil {
		log.Error("agent failed", "error", err)
		return 1
	}
	return 0
}
