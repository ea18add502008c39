package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/status"
)

// statusOptions are status's flags.
type statusOptions struct {
	out   *output
	watch bool
	wait  waitFlags
}

func newStatus(a *app) *cobra.Command {
	o := &statusOptions{}
	c := &cobra.Command{
		Use:     "status <rollout>",
		GroupID: "rollouts",
		Short:   "Show a rollout: where it is, what each phase and cluster waits for, its history",
		Long: `Show a rollout from its state ConfigMap (<rollout>-state): its status and current phase,
each phase's admitted clusters and hooks, gates and soaks, and the steering edits the agent
refused with their fix; -o wide adds when each phase, child and hook started and ended,
and cuts no line at 100 columns. -o json and -o yaml print the stable status document
(fields are only ever added); -o jsonpath and -o go-template query it.

-w/--watch follows the state ConfigMap with a watch: on a terminal the table is redrawn in
place, otherwise each change is appended. It runs until Ctrl-C.

--wait follows the state ConfigMap with a watch (listing it again when the watch expires)
until the current (or last) rollout ends, shows it, and exits 0 if it completed (or none
runs), 1 if it stopped, rolled back, was abandoned or failed, 3 when --timeout passed
first, 130 when interrupted (Ctrl-C) first.

` + exitCodesHelp,
		Example: `  cmp-phase status guestbook
  cmp-phase status guestbook -o jsonpath='{.phase}'
  cmp-phase status guestbook -o wide
  cmp-phase status guestbook -w

  # in CI: exit 0 when the rollout completed, 1 when it stopped, 3 after 30 minutes
  cmp-phase status guestbook --wait --timeout 30m`,
		Args:              exactArgs(1, "one rollout"),
		ValidArgsFunction: a.completeRollout,
		RunE:              func(c *cobra.Command, args []string) error { return a.runStatus(args[0], o) },
	}
	o.out = newOutput(c, true)
	c.Flags().BoolVarP(&o.watch, "watch", "w", false, "follow the state: redraw in place on a terminal, append each change otherwise; until Ctrl-C")
	c.Flags().BoolVar(&o.wait.wait, "wait", false, "wait until the current (or last) rollout ends, show it, and exit 0 if it completed, 1 if it stopped, rolled back, was abandoned or failed, 3 on --timeout, 130 on Ctrl-C")
	c.Flags().DurationVar(&o.wait.timeout, "timeout", 0, "with --wait: give up after this long (exit 3); 0: wait as long as it takes")
	c.MarkFlagsMutuallyExclusive("watch", "wait")
	return a.withKube(c)
}

func (a *app) runStatus(rollout string, o *statusOptions) error {
	if err := o.out.check(); err != nil {
		return err
	}
	if o.wait.timeout != 0 && !o.wait.wait {
		return usageError("--timeout %s without --wait (fix: add --wait, or drop --timeout)", o.wait.timeout)
	}
	if o.wait.timeout < 0 {
		return usageError("--timeout %s is negative (fix: a duration like 30m, or 0 to wait as long as it takes)", o.wait.timeout)
	}
	cn, err := a.connect()
	if err != nil {
		return failed(err)
	}
	switch {
	case o.wait.wait:
		return exitWith(waitFor(a.ctx, cn.kc, cn.namespace, rollout, o.out, o.wait, a.out, a.errOut))
	case o.watch:
		return failed(a.watchStatus(cn, rollout, o.out))
	}
	cm, err := readStateConfigMap(a.ctx, cn.kc, cn.namespace, rollout)
	if err != nil {
		return failed(err)
	}
	return failed(show(a.ctx, cn.kc, cm, rollout, o.out, a.out))
}

// readStateConfigMap GETs a rollout's state ConfigMap; not found says how to find the
// rollouts there are.
func readStateConfigMap(ctx context.Context, kc kubernetes.Interface, ns, rollout string) (*corev1.ConfigMap, error) {
	cm, err := kc.CoreV1().ConfigMaps(ns).Get(ctx, contract.StateConfigMap(rollout), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, notFound(ns, rollout)
	}
	if err != nil {
		return nil, fmt.Errorf("read rollout %s: %w", rollout, err)
	}
	return cm, nil
}

// notFound is the error of a rollout that has no state ConfigMap in the namespace.
func notFound(ns, rollout string) error {
	return fmt.Errorf("rollout %q not found in namespace %s (fix: list the rollouts with `cmp-phase list -n %s`, or in every namespace with `cmp-phase list -A`; a rollout has a state once its parent first synced)", rollout, ns, ns)
}

// docOf is the status document of a state ConfigMap, with the rollout's shards.
func docOf(ctx context.Context, kc kubernetes.Interface, cm *corev1.ConfigMap, rollout string) (status.Doc, error) {
	st, err := state.FromConfigMap(cm)
	if err != nil {
		return status.Doc{}, fmt.Errorf("rollout %s: %w", rollout, err)
	}
	doc := status.Of(rollout, st)
	shards, err := shardsOf(ctx, kc, cm.Namespace, rollout)
	if err != nil {
		return status.Doc{}, err
	}
	status.AddShards(&doc, shards)
	return doc, nil
}

// show prints the status of a state ConfigMap in the output's format.
func show(ctx context.Context, kc kubernetes.Interface, cm *corev1.ConfigMap, rollout string, out *output, w io.Writer) error {
	doc, err := docOf(ctx, kc, cm, rollout)
	if err != nil {
		return err
	}
	opts := status.TableOptions{NoHeaders: out.noHeaders, Wide: out.format() == "wide"}
	return out.print(w, doc, []string{rollout}, func(w io.Writer) error { return status.WriteTable(w, doc, time.Now(), opts) })
}
