// Command agent drives cmp-phase rollouts: it publishes the cluster inventory, runs the
// phase engine for every plan ConfigMap the parents render, writes the state ConfigMap and
// bumps each parent's PHASE_GEN so Argo CD re-renders it.
//
// This first version reconciles on a fixed interval (and at soak deadlines); informers, a
// work queue and leader election are still to come (issue 4).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/agent"
	"github.com/cmp-phase/cmp-phase/internal/kubeclient"
	"github.com/cmp-phase/cmp-phase/internal/logging"
	"github.com/cmp-phase/cmp-phase/internal/render"
)

type options struct {
	namespace  string
	kubeconfig string
	interval   time.Duration
	logLevel   string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.namespace, "namespace", "argocd", "namespace of the Applications, cluster Secrets and cmp-phase ConfigMaps")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig (default: in-cluster)")
	fs.DurationVar(&o.interval, "interval", 3*time.Second, "how often to reconcile every rollout")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := logging.New(os.Stderr, logging.ParseLevel(o.logLevel))
	a, err := newAgent(o, log)
	if err != nil {
		log.Error("start failed", "error", err)
		return 1
	}
	loop(ctx, a, o.interval)
	return 0
}

func newAgent(o options, log *slog.Logger) (*agent.Agent, error) {
	cfg, err := kubeclient.Config(o.kubeconfig)
	if err != nil {
		return nil, err
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kube client: %w", err)
	}
	ac, err := argoclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("argo client: %w", err)
	}
	return agent.New(kc, ac, o.namespace, log), nil
}

// loop reconciles every interval, or sooner when a rollout asked to come back earlier.
func loop(ctx context.Context, a *agent.Agent, interval time.Duration) {
	for {
		wait := interval
		if at := pass(ctx, a); !at.IsZero() && time.Until(at) < wait {
			wait = max(time.Until(at), 0)
		}
		select {
		case <-ctx.Done():
			a.Log.Info("stopping")
			return
		case <-time.After(wait):
		}
	}
}

// pass publishes the inventory and reconciles every plan once.
func pass(ctx context.Context, a *agent.Agent) time.Time {
	secrets, err := a.Kube.CoreV1().Secrets(a.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "argocd.argoproj.io/secret-type=cluster"})
	if err != nil {
		a.Log.Warn("list cluster secrets failed", "error", err)
		return time.Time{}
	}
	ptrs := make([]*corev1.Secret, len(secrets.Items))
	for i := range secrets.Items {
		ptrs[i] = &secrets.Items[i]
	}
	inv, err := a.PublishInventory(ctx, ptrs)
	if err != nil {
		a.Log.Warn("publish inventory failed", "error", err)
		return time.Time{}
	}
	plans, err := a.Kube.CoreV1().ConfigMaps(a.Namespace).List(ctx, metav1.ListOptions{LabelSelector: render.LabelPlan + "=true"})
	if err != nil {
		a.Log.Warn("list plans failed", "error", err)
		return time.Time{}
	}
	var next time.Time
	for i := range plans.Items {
		at, err := a.Reconcile(ctx, &plans.Items[i], inv, time.Now())
		if err != nil {
			a.Log.Warn("reconcile failed", "plan", plans.Items[i].Name, "error", err)
			continue
		}
		if !at.IsZero() && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	return next
}
