package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/telemetry"
)

// The exit codes of `cmp-phase status --wait`.
const (
	exitCompleted = 0 // the rollout completed (or none runs: the deployed revision is everywhere)
	exitFailed    = 1 // it ended without completing: Stopped, RolledBack or Abandoned; or an error
	exitTimedOut  = 3 // --timeout passed first
)

// waitFlags are status --wait and --timeout.
type waitFlags struct {
	wait    bool
	timeout time.Duration
	every   time.Duration // how often the state is read (tests shorten it)
}

// waitFor reads the rollout's state until its current (or last) rollout has ended, then
// shows it once; the exit code says how it ended.
func waitFor(ctx context.Context, kc kubernetes.Interface, ns, rollout, output string, w waitFlags, stdout, stderr io.Writer) int {
	if w.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.timeout)
		defer cancel()
	}
	every := w.every
	if every <= 0 {
		every = time.Second
	}
	for {
		st, err := readState(ctx, kc, ns, rollout)
		switch {
		case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
			fmt.Fprintf(stderr, "cmp-phase: rollout %s did not end within --timeout %s\n", rollout, w.timeout)
			return exitTimedOut
		case err != nil:
			fmt.Fprintln(stderr, "cmp-phase:", err)
			return exitFailed
		}
		if code, ended := ending(st); ended {
			if _, err := show(ctx, kc, ns, rollout, output, "", stdout); err != nil {
				fmt.Fprintln(stderr, "cmp-phase:", err)
				return exitFailed
			}
			return code
		}
		select {
		case <-ctx.Done():
			fmt.Fprintf(stderr, "cmp-phase: rollout %s did not end within --timeout %s\n", rollout, w.timeout)
			return exitTimedOut
		case <-time.After(every):
		}
	}
}

// ending is the exit code of a state whose rollout has ended (ended false: it runs).
func ending(st *state.State) (int, bool) {
	r := st.Rollout
	switch {
	case r == nil || r.Status == state.RolloutCompleted:
		return exitCompleted, true
	case r.Status.IsTerminal():
		return exitFailed, true
	}
	return 0, false
}

func readState(ctx context.Context, kc kubernetes.Interface, ns, rollout string) (*state.State, error) {
	cm, err := kc.CoreV1().ConfigMaps(ns).Get(ctx, contract.StateConfigMap(rollout), metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("rollout %s: %w (fix: check the name with kubectl -n %s get configmaps -l %s)", rollout, err, ns, contract.LabelState)
	}
	return state.FromConfigMap(cm)
}

// versionLine is what `cmp-phase version` prints.
func versionLine() string {
	return fmt.Sprintf("cmp-phase %s (revision %s, %s)", telemetry.Version(), telemetry.Revision(), runtime.Version())
}
