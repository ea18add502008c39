package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// waitFlags are status --wait and --timeout.
type waitFlags struct {
	wait    bool
	timeout time.Duration
}

// errTimedOut is the cause of the context --timeout ends.
var errTimedOut = errors.New("--timeout passed")

// waitFor follows the rollout's state ConfigMap with a watch until its current (or last)
// rollout has ended, then shows it once; the exit code says how it ended (exitOK,
// exitFailed), or that --timeout passed first (exitTimedOut) or Ctrl-C came first
// (exitInterrupted).
func waitFor(ctx context.Context, kc kubernetes.Interface, ns, rollout string, out *output, w waitFlags, stdout, stderr io.Writer) int {
	waitCtx := ctx
	if w.timeout > 0 {
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeoutCause(ctx, w.timeout, errTimedOut)
		defer cancel()
	}
	cm, err := untilEnded(waitCtx, kc, ns, rollout)
	switch {
	case ctx.Err() != nil: // Ctrl-C or SIGTERM, not --timeout
		fmt.Fprintf(stderr, "cmp-phase: interrupted: rollout %s had not ended (it goes on; see where it is with `cmp-phase status %s`)\n", rollout, rollout)
		return exitInterrupted
	case errors.Is(context.Cause(waitCtx), errTimedOut):
		fmt.Fprintf(stderr, "cmp-phase: rollout %s did not end within --timeout %s (fix: wait longer with a larger --timeout, or see why with `cmp-phase status %s`)\n", rollout, w.timeout, rollout)
		return exitTimedOut
	case err != nil:
		fmt.Fprintln(stderr, "cmp-phase:", err)
		return exitFailed
	}
	st, err := state.FromConfigMap(cm)
	if err != nil {
		fmt.Fprintf(stderr, "cmp-phase: rollout %s: %s\n", rollout, err)
		return exitFailed
	}
	code, _ := ending(st)
	if err := show(ctx, kc, cm, rollout, out, stdout); err != nil {
		fmt.Fprintln(stderr, "cmp-phase:", err)
		return exitFailed
	}
	return code
}

// untilEnded lists and watches the rollout's state ConfigMap (the informer lists again
// when the watch expires) until a version whose rollout has ended: that version. A state
// that is missing, deleted or cannot be read is an error.
func untilEnded(ctx context.Context, kc kubernetes.Interface, ns, rollout string) (*corev1.ConfigMap, error) {
	var last *corev1.ConfigMap
	ended := func(obj any) (bool, error) {
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok {
			return false, nil
		}
		st, err := state.FromConfigMap(cm)
		if err != nil {
			return false, fmt.Errorf("rollout %s: %w", rollout, err)
		}
		last = cm
		_, done := ending(st)
		return done, nil
	}
	present := func(store cache.Store) (bool, error) {
		obj, ok, err := store.GetByKey(ns + "/" + contract.StateConfigMap(rollout))
		if err != nil || !ok {
			return false, errors.Join(err, notFound(ns, rollout))
		}
		return ended(obj)
	}
	_, err := watchtools.UntilWithSync(ctx, stateListWatch(kc, ns, rollout), &corev1.ConfigMap{}, present, func(e watch.Event) (bool, error) {
		if e.Type == watch.Deleted {
			return false, fmt.Errorf("rollout %s: its state ConfigMap was deleted while waiting (fix: see whether its parent Application is still there)", rollout)
		}
		return ended(e.Object)
	})
	return last, err
}

// ending is the exit code of a state whose rollout has ended (ended false: it runs).
func ending(st *state.State) (int, bool) {
	r := st.Rollout
	switch {
	case r == nil || r.Status == state.RolloutCompleted:
		return exitOK, true
	case r.Status.IsTerminal():
		return exitFailed, true
	}
	return 0, false
}
