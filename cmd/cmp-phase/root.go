package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/startup/versioncmd"
)

// app is what every command shares: the context (cancelled on Ctrl-C or SIGTERM), the
// output streams, kubectl's connection flags, and how a command reaches the API server
// (tests replace connect with a fake clientset).
type app struct {
	ctx         context.Context
	args        []string // the command line (without the program's name)
	out, errOut io.Writer
	kube        *genericclioptions.ConfigFlags
	connect     func() (*conn, error)
}

// conn is a connection to the API server: the client, its config, the namespace (-n, else
// the context's, else contract.DefaultNamespace) and who is acting (the context's user,
// else $USER).
type conn struct {
	kc        kubernetes.Interface
	cfg       *rest.Config
	namespace string
	user      string
}

// rootName is the command's name in help: kubectl's when run as the kubectl plugin.
func rootName() string {
	if strings.HasPrefix(filepath.Base(os.Args[0]), "kubectl-") {
		return "kubectl cmp-phase"
	}
	return "cmp-phase"
}

// newRoot builds the command tree.
func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "cmp-phase",
		Short: "Phased multi-cluster rollouts for Argo CD: the config management plugin and its CLI",
		Long: `cmp-phase renders an app-of-apps parent's child Applications phase by phase (serve,
generate), and steers the rollouts its agent drives: list and status show them, plan shows
offline which cluster lands in which phase, preview diffs the next batch, and the steering
verbs (pause, resume, approve, …) record a person's decision in the rollout's ConfigMap.

Commands that read or write the cluster take kubectl's flags (--kubeconfig, --context,
-n, --as, …); installed as kubectl-cmp_phase in $PATH it runs as ` + "`kubectl cmp-phase`" + `.

` + exitCodesHelp,
		Example: `  # the rollouts of every namespace, then one of them
  cmp-phase list -A
  cmp-phase status guestbook -n argocd

  # in CI: wait for the rollout, exit 0 if it completed
  cmp-phase status guestbook --wait --timeout 30m

  # check a spec, and see where each cluster lands
  cmp-phase validate apps/guestbook/
  cmp-phase plan apps/guestbook/ --inventory-file clusters.json`,
		Version:           versioncmd.Of("cmp-phase").Line(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
	}
	if a.kube == nil {
		a.kube = genericclioptions.NewConfigFlags(true)
	}
	if a.connect == nil {
		a.connect = a.dial
	}
	if strings.HasPrefix(rootName(), "kubectl") {
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: rootName()}
	}
	root.SetUsageTemplate(usageTemplate(root))
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(a.out)
	root.SetErr(a.errOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return singleDash(c, a.args, err) })
	root.AddGroup(&cobra.Group{ID: "rollouts", Title: "Rollouts:"}, &cobra.Group{ID: "steer", Title: "Steering a rollout:"},
		&cobra.Group{ID: "plugin", Title: "The plugin:"})
	root.AddCommand(newList(a), newStatus(a), newPlan(a), newPreview(a))
	root.AddCommand(steerCommands(a)...)
	root.AddCommand(newFleet(a, "stop-all"), newFleet(a, "resume-all"))
	root.AddCommand(newServe(a), newGenerate(a), newValidate(a), newVersion(a), newDocs(a))
	root.SetHelpCommandGroupID("")
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	builtinExamples(root)
	return root
}

// builtinExamples gives the commands cobra adds, help and completion, their examples.
func builtinExamples(root *cobra.Command) {
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  cmp-phase help status"
		case "completion":
			completionExamples(c)
		}
	}
}

// completionExamples gives cobra's completion command and its shells an example each.
func completionExamples(c *cobra.Command) {
	c.Example = `  # bash, for this shell; zsh and fish alike
  source <(cmp-phase completion bash)`
	for _, sh := range c.Commands() {
		switch sh.Name() {
		case "powershell":
			sh.Example = "  cmp-phase completion powershell | Out-String | Invoke-Expression"
		case "fish":
			sh.Example = "  cmp-phase completion fish | source"
		default:
			sh.Example = fmt.Sprintf("  source <(cmp-phase completion %s)", sh.Name())
		}
	}
}

// kubeFlag marks kubectl's flags: help lists them apart.
const kubeFlag = "cmp-phase.io/kubectl-flag"

// withKube adds kubectl's connection flags to a command that talks to the API server.
func (a *app) withKube(c *cobra.Command) *cobra.Command {
	kube := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	a.kube.AddFlags(kube)
	kube.VisitAll(func(f *pflag.Flag) { f.Annotations = map[string][]string{kubeFlag: {"true"}} })
	if f := kube.Lookup("namespace"); f != nil {
		f.Usage = "namespace of the rollouts' ConfigMaps (default: the context's, else " + contract.DefaultNamespace + ")"
	}
	if f := kube.Lookup("cache-dir"); f != nil {
		f.DefValue = "$HOME/.kube/cache" // not this machine's home: help and the reference are the same everywhere
	}
	c.Flags().AddFlagSet(kube)
	if f := c.Flags().Lookup("show-managed-fields"); f != nil {
		f.Hidden = true // the documents printed are not Kubernetes objects
	}
	return c
}

// flagUsages are the usages of c's own flags (kube false) or of kubectl's (kube true).
func flagUsages(c *cobra.Command, kube bool) string {
	fs := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if _, k := f.Annotations[kubeFlag]; k == kube {
			fs.AddFlag(f)
		}
	})
	return fs.FlagUsages()
}

// usageTemplate is cobra's, with kubectl's flags listed apart from the command's own.
func usageTemplate(root *cobra.Command) string {
	cobra.AddTemplateFunc("ownFlagUsages", func(c *cobra.Command) string { return flagUsages(c, false) })
	cobra.AddTemplateFunc("kubeFlagUsages", func(c *cobra.Command) string { return flagUsages(c, true) })
	return strings.Replace(root.UsageTemplate(), "{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}",
		"{{ownFlagUsages . | trimTrailingWhitespaces}}{{with kubeFlagUsages .}}\n\nKubectl flags:\n{{. | trimTrailingWhitespaces}}{{end}}", 1)
}

// dial connects with kubectl's flags.
func (a *app) dial() (*conn, error) {
	cc := a.kube.ToRawKubeConfigLoader()
	cfg, err := a.kube.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w (fix: pass --kubeconfig or --context, or set KUBECONFIG)", err)
	}
	ns := contract.DefaultNamespace
	if n, explicit, err := cc.Namespace(); err == nil && explicit {
		ns = n
	}
	user := os.Getenv("USER")
	if raw, err := cc.RawConfig(); err == nil {
		name := raw.CurrentContext
		if a.kube.Context != nil && *a.kube.Context != "" {
			name = *a.kube.Context
		}
		if c, ok := raw.Contexts[name]; ok && c.AuthInfo != "" {
			user = c.AuthInfo
		}
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kube client: %w", err)
	}
	return &conn{kc: kc, cfg: cfg, namespace: ns, user: user}, nil
}

// singleDash names a long flag given with one dash (Go's flag took -reason; pflag reads it
// as -r -e -a …), else returns err as it is.
func singleDash(c *cobra.Command, args []string, err error) error {
	for _, arg := range args {
		if len(arg) < 3 || arg[0] != '-' || arg[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(arg[1:], "=")
		if len(name) > 1 && c.Flags().Lookup(name) != nil {
			return fmt.Errorf("%s: long flags take two dashes (fix: -%s)", arg, arg)
		}
	}
	return err
}

// exactArgs is cobra.ExactArgs with the arguments named in the error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return fmt.Errorf("%s takes %s, got %d argument(s) %q (fix: %s)", c.Name(), what, len(args), args, c.UseLine())
		}
		return nil
	}
}
