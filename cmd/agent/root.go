package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/cmp-phase/cmp-phase/internal/agent/clustersource"
	"github.com/cmp-phase/cmp-phase/internal/startup/versioncmd"
)

// newRoot is the agent's command: without a subcommand it reads and checks its flags (the
// command line, then CMP_PHASE_AGENT_<FLAG>) into o and sets *start; `version` prints the
// version.
func newRoot(o *options, start *bool) *cobra.Command {
	root := &cobra.Command{
		Use:   "agent [flags]",
		Short: "Drive cmp-phase rollouts: the phase engine, under leader election",
		Long: `The agent drives cmp-phase rollouts: it publishes the cluster inventory, runs the phase
engine for every plan ConfigMap the parents render, writes the state ConfigMaps, and bumps
each parent's PHASE_GEN so Argo CD re-renders it. Run without a command, it starts.

Every flag can also be set by the environment variable CMP_PHASE_AGENT_<FLAG> (upper case,
'-' as '_': CMP_PHASE_AGENT_INVENTORY_FROM=argocd); a flag on the command line wins, and a
CMP_PHASE_AGENT_ variable that names no flag is refused.

Exit codes: 0 stopped by a signal (or help, version printed); 1 failed; 2 bad usage (an
unknown flag, command or variable, a bad value).`,
		Example: `  agent --namespace argocd --metrics-addr :9402
  CMP_PHASE_AGENT_LOG_LEVEL=debug agent --kubeconfig ~/.kube/config --leader-elect=false
  agent version -o json`,
		Version:           versioncmd.Of("agent").Line(),
		Args:              noArgs,
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if o.fromEnv, err = flagsFromEnv(c.Flags()); err != nil {
				return err
			}
			*start = true
			return o.check()
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetVersionTemplate("{{.Version}}\n")
	fs := root.Flags()
	fs.SortFlags = false // by concern, as bound
	o.conn.BindFlags(fs)
	rollouts{&o.agent}.BindFlags(fs)
	hookFlags{&o.agent}.BindFlags(fs)
	limitFlags{&o.agent}.BindFlags(fs)
	o.election.BindFlags(fs)
	o.obs.BindFlags(fs)
	o.argoAPI.BindFlags(fs)
	o.ext.BindFlags(fs)
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	root.Flags().Lookup("version").Usage = "print the version, VCS revision and Go version, and exit (as the version command does)"
	root.AddCommand(versioncmd.New("agent", "  agent version\n  agent version -o json"))
	return root
}

// noArgs refuses an argument that is no command.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q (fix: the agent takes flags, or the command version; see --help)", args[0])
	}
	return nil
}

// parse reads the command line and the environment into the options; start is false when
// a command other than the agent itself ran (help, version).
func parse(args []string, stdout, stderr io.Writer) (o options, start bool, err error) {
	root := newRoot(&o, &start)
	root.SetOut(stdout)
	root.SetErr(stderr)
	args, o.oneDash = twoDashes(args, root.Flags())
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		return o, false, err
	}
	return o, start, nil
}

// check validates the flags once read.
func (o *options) check() error {
	if err := (rollouts{&o.agent}).validate(); err != nil {
		return err
	}
	if err := (limitFlags{&o.agent}).validate(); err != nil {
		return err
	}
	if err := o.ext.validate(); err != nil {
		return err
	}
	var err error
	if o.agent.ArgoCD, err = o.argoAPI.client(); err != nil {
		return err
	}
	if o.agent.InventoryFrom == clustersource.FromArgoCD && o.agent.ArgoCD == nil {
		return fmt.Errorf("--inventory-from %s reads argocd-server's clusters (fix: set --argocd-server and --argocd-token-file, or --inventory-from %s)", clustersource.FromArgoCD, clustersource.FromSecrets)
	}
	return o.election.validate()
}
