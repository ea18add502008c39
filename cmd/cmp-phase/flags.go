package main

import (
	"flag"
	"fmt"
	"os"
	"slices"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// kubeFlags are kubectl's connection flags.
type kubeFlags struct {
	kubeconfig, context, namespace string
	as                             string    // --as: the user to impersonate
	asGroups                       groupList // --as-group: the groups to impersonate
}

// BindFlags registers --kubeconfig, --context and -n (--namespace).
func (k *kubeFlags) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&k.kubeconfig, "kubeconfig", "", "kubeconfig (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&k.context, "context", "", "kubeconfig context")
	fs.StringVar(&k.namespace, "n", "", "namespace of the rollout's ConfigMaps (default: the context's, else "+contract.DefaultNamespace+")")
	fs.StringVar(&k.namespace, "namespace", "", "same as -n")
	fs.StringVar(&k.as, "as", "", "user to impersonate, as kubectl --as")
	fs.Var(&k.asGroups, "as-group", "group to impersonate, as kubectl --as-group (repeatable)")
}

// connect returns a client, the namespace, and who is acting (the context's user).
func (k *kubeFlags) connect() (kubernetes.Interface, string, string, error) {
	kc, _, ns, who, err := k.connectConfig()
	return kc, ns, who, err
}

func (k *kubeFlags) connectConfig() (kubernetes.Interface, *rest.Config, string, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, k.overrides())
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

// steerFlags say who steers a rollout and why, and the modifiers of pause and jump.
type steerFlags struct {
	reason, by, until string
	force             bool
}

// BindFlags registers --reason, --by, --until and --force.
func (s *steerFlags) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&s.reason, "reason", "", "why (recorded in the rollout's history)")
	fs.StringVar(&s.by, "by", "", "who steers (recorded in the rollout's history; default: the kubeconfig context's user, else $USER)")
	fs.StringVar(&s.until, "until", "", "pause only: RFC 3339 time the pause ends by itself")
	fs.BoolVar(&s.force, "force", false, "jump only: pass unfinished gates")
}

// who is --by, else the connection's user.
func (s *steerFlags) who(user string) string {
	if s.by != "" {
		return s.by
	}
	return user
}

// outputFlags say how status prints.
type outputFlags struct {
	format string
	watch  bool
}

var formats = []string{"table", "json", "yaml"}

// BindFlags registers -o and --watch.
func (o *outputFlags) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.format, "o", formats[0], "table, json or yaml")
	fs.BoolVar(&o.watch, "watch", false, "redraw whenever the state changes")
}

func (o *outputFlags) valid() bool { return slices.Contains(formats, o.format) }
