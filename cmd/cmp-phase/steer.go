package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
	"github.com/cmp-phase/cmp-phase/internal/render"
)

// kubeFlags are kubectl's connection flags.
type kubeFlags struct {
	kubeconfig, context, namespace string
}

func (k *kubeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&k.kubeconfig, "kubeconfig", "", "kubeconfig (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&k.context, "context", "", "kubeconfig context")
	fs.StringVar(&k.namespace, "n", "", "namespace of the rollout's ConfigMaps (default: the context's, else "+contract.DefaultNamespace+")")
	fs.StringVar(&k.namespace, "namespace", "", "same as -n")
}

// connect returns a client, the namespace, and who is acting (the context's user).
func (k *kubeFlags) connect() (kubernetes.Interface, string, string, error) {
	kc, _, ns, who, err := k.connectConfig()
	return kc, ns, who, err
}

func (k *kubeFlags) connectConfig() (kubernetes.Interface, *rest.Config, string, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: k.context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, nil, "", "", fmt.Errorf("kubeconfig: %w", err)
	}
	ns := k.namespace
	if ns == "" {
		if n, explicit, err := cc.Namespace(); err == nil && explicit {
			ns = n
		} else {
			ns = contract.DefaultNamespace
		}
	}
	who := os.Getenv("USER")
	if raw, err := cc.RawConfig(); err == nil {
		name := k.context
		if name == "" {
			name = raw.CurrentContext
		}
		if c, ok := raw.Contexts[name]; ok && c.AuthInfo != "" {
			who = c.AuthInfo
		}
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, "", "", fmt.Errorf("kube client: %w", err)
	}
	return kc, cfg, ns, who, nil
}

// verb is one steering command: which keys it sets (or removes) from its arguments.
type verb struct {
	args  string // usage of the positional arguments after the rollout
	nargs int    // how many (-1: one or more)
	edit  func(args []string, reason, until string, force bool, data map[string]string) (map[string]*string, error)
}

func set(v string) *string { return &v }

var verbs = map[string]verb{
	"pause": {"", 0, func(_ []string, reason, until string, _ bool, _ map[string]string) (map[string]*string, error) {
		e := map[string]*string{contract.PauseKey: set(reason), contract.PauseUntilKey: nil}
		if until != "" {
			e[contract.PauseUntilKey] = set(until)
		}
		return e, nil
	}},
	"resume":   {"", 0, oneKey(contract.ResumeKey, false)},
	"abort":    {"", 0, oneKey(contract.AbortKey, false)},
	"rollback": {"", 0, oneKey(contract.RollbackKey, false)},
	"approve":  {"<phase>", 1, oneKey(contract.ApproveKey, true)},
	"promote":  {"<phase>", 1, oneKey(contract.PromoteKey, true)},
	"jump": {"<phase>", 1, func(args []string, _, _ string, force bool, _ map[string]string) (map[string]*string, error) {
		e := map[string]*string{contract.JumpKey: set(args[0]), contract.ForceKey: nil}
		if force {
			e[contract.ForceKey] = set("true")
		}
		return e, nil
	}},
	"skip":   {"<child>...", -1, skipEdit(true)},
	"unskip": {"<child>...", -1, skipEdit(false)},
	"confirm-removal": {"<child>...|all", -1, func(args []string, _, _ string, _ bool, _ map[string]string) (map[string]*string, error) {
		return map[string]*string{contract.ConfirmRemovalKey: set(strings.Join(args, ","))}, nil
	}},
}

// oneKey sets key to the phase argument (withArg) or to the reason.
func oneKey(key string, withArg bool) func([]string, string, string, bool, map[string]string) (map[string]*string, error) {
	return func(args []string, reason, _ string, _ bool, _ map[string]string) (map[string]*string, error) {
		if withArg {
			return map[string]*string{key: set(args[0])}, nil
		}
		return map[string]*string{key: set(reason)}, nil
	}
}

func skipEdit(add bool) func([]string, string, string, bool, map[string]string) (map[string]*string, error) {
	return func(args []string, _, _ string, _ bool, data map[string]string) (map[string]*string, error) {
		list := map[string]bool{}
		for _, s := range strings.Split(data[contract.SkipKey], ",") {
			if s = strings.TrimSpace(s); s != "" {
				list[s] = true
			}
		}
		for _, a := range args {
			list[a] = add
		}
		var out []string
		for s, on := range list {
			if on {
				out = append(out, s)
			}
		}
		if len(out) == 0 {
			return map[string]*string{contract.SkipKey: nil}, nil
		}
		slices.Sort(out)
		return map[string]*string{contract.SkipKey: set(strings.Join(out, ","))}, nil
	}
}

// runVerb edits the rollout's ConfigMap as the verb says, after validating the result
// exactly as the agent will; a conflicting concurrent edit is re-read and re-applied.
func runVerb(ctx context.Context, name string, args []string, stdout, stderr io.Writer) int {
	v := verbs[name]
	fs := flag.NewFlagSet("cmp-phase "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var k kubeFlags
	k.register(fs)
	reason := fs.String("reason", "", "why (recorded in the rollout's history)")
	until := fs.String("until", "", "pause only: RFC 3339 time the pause ends by itself")
	force := fs.Bool("force", false, "jump only: pass unfinished gates")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cmp-phase %s <rollout> %s --reason <why> [flags]\n", name, v.args)
		fs.PrintDefaults()
	}
	if err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	pos := fs.Args()
	if len(pos) < 1 || (v.nargs >= 0 && len(pos) != 1+v.nargs) || (v.nargs < 0 && len(pos) < 2) || strings.TrimSpace(*reason) == "" {
		fs.Usage()
		return 2
	}
	kc, ns, who, err := k.connect()
	if err != nil {
		fmt.Fprintln(stderr, "cmp-phase:", err)
		return 1
	}
	if err := edit(ctx, kc, ns, pos[0], who, func(data map[string]string) (map[string]*string, error) {
		return v.edit(pos[1:], *reason, *until, *force, data)
	}, *reason); err != nil {
		fmt.Fprintln(stderr, "cmp-phase:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s recorded; the agent acts on it and reports in `cmp-phase status %s`\n", pos[0], name, pos[0])
	return 0
}

func edit(ctx context.Context, kc kubernetes.Interface, ns, rollout, who string, change func(map[string]string) (map[string]*string, error), reason string) error {
	plan, err := kc.CoreV1().ConfigMaps(ns).Get(ctx, contract.PlanConfigMap(rollout), metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("rollout %s: no plan in %s (is the parent synced?): %w", rollout, ns, err)
	}
	phases, err := phaseNames(plan)
	if err != nil {
		return err
	}
	cms := kc.CoreV1().ConfigMaps(ns)
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		cm, err := cms.Get(ctx, contract.StateConfigMap(rollout), metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("rollout %s: no state yet: %w", rollout, err)
		}
		changes, err := change(cm.Data)
		if err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		for k, v := range changes {
			if v == nil {
				delete(cm.Data, k)
			} else {
				cm.Data[k] = *v
			}
		}
		cm.Data[contract.ByKey], cm.Data[contract.ReasonKey] = who, reason
		if c := control.Parse(cm.Data, phases, time.Now()); len(c.Problems) > 0 {
			return fmt.Errorf("refused: %s", c.Problems[0])
		}
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
}

func phaseNames(plan *corev1.ConfigMap) ([]string, error) {
	p, err := render.DecodePlan(plan, nil)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(p.Phases))
	for i, ph := range p.Phases {
		names[i] = ph.Name
	}
	return names, nil
}
