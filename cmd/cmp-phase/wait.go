package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// waitFlags are status --wait and --timeout.
type waitFlags struct {
	wait    bool
	timeout time.Duration
	every   time.Duration // how often the state is read (tests shorten it)
}

// waitFor reads the rollout's state until its current (or last) rollout has ended, then
// shows it once; the exit code says how it ended (exitCompleted, exitFailed, exitTimedOut).
func waitFor(ctx context.Context, kc kubernetes.Interface, ns, rollout string, out *output, w waitFlags, stdout, stderr io.Writer) int {
	if w.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.timeout)
		defer cancel()
	}
	every := w.every
	if every <= 0 {
		every = time.Second
	}
	timedOut := func() int {
		fmt.Fprintf(stderr, "cmp-phase: rollout %s did not end within --timeout %s (fix: wait longer with a larger --timeout, or see why with `cmp-phase status %s`)\n", rollout, w.timeout, rollout)
		return exitTimedOut
	}
	for {
		cm, err := readStateConfigMap(ctx, kc, ns, rollout)
		switch {
		case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
			return timedOut()
		case err != nil:
			fmt.Fprintln(stderr, "cmp-phase:", err)
			return exitFailed
		}
		st, err := state.FromConfigMap(cm)
		if err != nil {
			fmt.Fprintf(stderr, "cmp-phase: rollout %s: %s\n", rollout, err)
			return exitFailed
		}
		if code, ended := ending(st); ended {
			if err := show(ctx, kc, cm, rollout, out, stdout); err != nil {
				fmt.Fprintln(stderr, "cmp-phase:", err)
				return exitFailed
			}
			return code
		}
		select {
		case <-ctx.Done():
			return timedOut()
		case <-time.After(every):
		}
	}
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
