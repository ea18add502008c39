// Command cmp-phase is the Argo CD Config Management Plugin of cmp-phase: it renders an
// app-of-apps parent's child Applications phase by phase.
//
//	cmp-phase serve     in-process CMP gRPC server on the plugin socket (sidecar)
//	cmp-phase generate  render once to stdout (stock argocd-cmp-server, local use)
//	cmp-phase validate  check a spec without any cluster
//	cmp-phase status    a rollout's status (table, json, yaml; --watch)
//	cmp-phase preview   the next batch, rendered locally, diffed against the live children
//	cmp-phase pause|resume|approve|reject|promote|jump|abort|rollback|skip|unskip|confirm-removal|confirm-remove-rollout|override-window
//	                    steer a rollout: a validated edit of its ConfigMap
//	cmp-phase stop-all|resume-all
//	                    pause every rollout the agent drives (an incident), or release them
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/cmp-phase/cmp-phase/internal/hooks/all" // every hook kind a spec may use
)

const usage = `usage: cmp-phase <command> [flags]

commands:
  serve      serve the CMP gRPC API on <socket-dir>/<name>-<version>.sock
  generate   render the children of the spec in --dir to stdout
  validate   validate the spec(s) in the given files or directories
  status     show a rollout: cmp-phase status <rollout> [-o table|json|yaml] [--watch]
  preview    the next batch rendered locally and diffed against the live children:
             cmp-phase preview <rollout> --dir <app dir>
  pause, resume, approve, reject, promote, jump, abort, rollback, skip, unskip, confirm-removal, confirm-remove-rollout,
  override-window
             steer a rollout, e.g. cmp-phase pause guestbook --reason "error rate up"
             (kubectl flags: --kubeconfig, --context, -n, --as, --as-group)
  stop-all, resume-all
             pause every rollout of the namespace's agent at once, or lift that stop:
             cmp-phase stop-all --reason "incident 4711"; cmp-phase resume-all
  version    print the version, VCS revision and Go version

status --wait exits 0 when the rollout completed, 1 when it stopped, rolled back or was
abandoned, 3 when --timeout passed; every command exits 2 on bad usage.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], stderr)
	case "generate":
		return runGenerate(ctx, args[1:], stdout, stderr)
	case "validate":
		return runValidate(args[1:], stdout, stderr)
	case "status":
		return runStatus(ctx, args[1:], stdout, stderr)
	case "preview":
		return runPreview(ctx, args[1:], stdout, stderr)
	case "stop-all", "resume-all":
		return runFleet(ctx, args[0], args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, versionLine())
		return 0
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		if _, ok := verbs[args[0]]; ok {
			return runVerb(ctx, args[0], args[1:], stdout, stderr)
		}
		fmt.Fprintf(stderr, "cmp-phase: unknown command %q\n%s", args[0], usage)
		return 2
	}
}
