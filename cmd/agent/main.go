// Command agent drives cmp-phase rollouts: it publishes the cluster inventory, runs the
// phase engine for every plan ConfigMap the parents render, writes the state ConfigMaps,
// bumps each parent's PHASE_GEN so Argo CD re-renders it, and publishes Events on the
// parents. It watches through trimmed informers, waits on deadlines through a work queue,
// and acts only while it holds the leader Lease (one agent per repo-server replica runs by
// default; the others stand by).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/cmp-phase/cmp-phase/internal/agent"
	"github.com/cmp-phase/cmp-phase/internal/startup/logging"
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
	fromEnv  []string       // flags set from CMP_PHASE_AGENT_<FLAG> (env.go)
	oneDash  []string       // long flags given with one dash (env.go: twoDashes)
}

// The exit codes.
const (
	exitOK     = 0 // stopped by a signal; help or version printed
	exitFailed = 1 // the agent failed
	exitUsage  = 2 // bad usage: an unknown flag or command, a bad value or variable
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, starts, err := parse(args, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "agent: %s\nRun 'agent --help' for usage.\n", err)
		return exitUsage
	}
	if !starts {
		return exitOK // help or version
	}
	log := logging.New(stderr, logging.ParseLevel(o.obs.logLevel))
	klog.SetSlogLogger(log) // client-go's own lines in the same format
	log.Info("agent starting", "version", telemetry.Version(), "flagsFromEnvironment", o.fromEnv)
	if len(o.oneDash) > 0 {
		log.Warn("long flags given with one dash; they take two (fix: --<flag> in the args)", "flags", o.oneDash)
	}
	if err := start(ctx, o, log); err != nil {
		log.Error("agent failed", "error", err)
		return exitFailed
	}
	return exitOK
}
