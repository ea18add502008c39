package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// isTerminal says whether w is a terminal (the table is then redrawn in place).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// watchStatus follows the rollout's state ConfigMap with a list-and-watch (re-established
// when the API server closes it) and prints each version: on a terminal in place, and once
// a second for the table's countdowns; otherwise appended, each change once. It returns
// when the context ends (Ctrl-C).
func (a *app) watchStatus(cn *conn, rollout string, out *output) error {
	lw := stateListWatch(cn.kc, cn.namespace, rollout)
	tty := isTerminal(a.out)
	var last *corev1.ConfigMap
	seen := false
	draw := func() error {
		if last == nil {
			if !seen {
				return notFound(cn.namespace, rollout)
			}
			_, err := fmt.Fprintf(a.out, "rollout %s: its state ConfigMap was deleted; waiting for it to come back\n", rollout)
			return err
		}
		if tty {
			fmt.Fprint(a.out, "\x1b[H\x1b[2J") // redraw in place
		}
		return show(a.ctx, cn.kc, last, rollout, out, a.out)
	}
	ctx, stop := context.WithCancel(a.ctx)
	defer stop()
	changes := make(chan *corev1.ConfigMap, 16)
	send := func(cm *corev1.ConfigMap) {
		select {
		case changes <- cm:
		case <-ctx.Done():
		}
	}
	_, informer := cache.NewInformerWithOptions(cache.InformerOptions{ListerWatcher: lw, ObjectType: &corev1.ConfigMap{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { sendObj(send, obj) },
			UpdateFunc: func(_, obj any) { sendObj(send, obj) },
			DeleteFunc: func(any) { send(nil) },
		}})
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return nil // Ctrl-C before the first list
	}
	return a.followChanges(ctx, changes, tty, &last, &seen, draw)
}

// followChanges draws each change, and on a terminal redraws every second.
func (a *app) followChanges(ctx context.Context, changes <-chan *corev1.ConfigMap, tty bool, last **corev1.ConfigMap, seen *bool, draw func() error) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	// The first list has been delivered (or found nothing): draw it.
	select {
	case cm := <-changes:
		*last, *seen = cm, cm != nil
	default:
	}
	if err := draw(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case cm := <-changes:
			if err := a.drawChange(cm, tty, last, seen, draw); err != nil {
				return err
			}
		case <-tick.C:
			if tty && *last != nil {
				if err := draw(); err != nil {
					return err
				}
			}
		}
	}
}

// drawChange draws a change the informer delivered (cm nil: the ConfigMap is gone), unless
// it is the version last drawn; off a terminal, a blank line parts it from the drawing
// before.
func (a *app) drawChange(cm *corev1.ConfigMap, tty bool, last **corev1.ConfigMap, seen *bool, draw func() error) error {
	if cm != nil && *last != nil && cm.ResourceVersion == (*last).ResourceVersion {
		return nil
	}
	*last = cm
	*seen = *seen || cm != nil
	if !tty {
		fmt.Fprintln(a.out)
	}
	return draw()
}

// stateListWatch lists and watches the rollout's state ConfigMap alone.
func stateListWatch(kc kubernetes.Interface, ns, rollout string) *cache.ListWatch {
	sel := fields.OneTermEqualSelector("metadata.name", contract.StateConfigMap(rollout)).String()
	cms := kc.CoreV1().ConfigMaps(ns)
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = sel
			return cms.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			return cms.Watch(ctx, o)
		},
	}
}

// sendObj sends a ConfigMap the informer delivered (anything else is not ours to show).
func sendObj(send func(*corev1.ConfigMap), obj any) {
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		send(cm)
	}
}
