package framework

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// WaitRolloutCompleted waits until a rollout of a PhasedSpec other than the one of revision
// from completed with every cluster's Workload on version, checking every observation
// (RolloutInOrder). It returns the last state and how many observations caught the rollout
// active with some cluster admitted.
func (e *Env) WaitRolloutCompleted(t *testing.T, rollout, from, version string) (last *state.State, midway int) {
	t.Helper()
	e.WaitFor(t, 6*time.Minute, "a rollout of "+version+" completes", func(ctx context.Context) (bool, string) {
		// The workloads first: an admission is written before its child moves, so the
		// state read after them admits every cluster seen on version.
		var on, off []string
		for _, c := range e.Clusters {
			cm, err := e.ClusterKube(c.Name).CoreV1().ConfigMaps(c.Name).Get(ctx, rollout, metav1.GetOptions{})
			if err == nil && cm.Data["version"] == version {
				on = append(on, c.Name)
			} else {
				off = append(off, c.Name)
			}
		}
		st, err := e.State(ctx, rollout)
		if err != nil || st.Rollout == nil || st.Rollout.Revision == from {
			return false, fmt.Sprint("no rollout of ", version, " yet: ", err)
		}
		RolloutInOrder(t, rollout, st, on)
		if st.Rollout.Active() && len(st.Rollout.AdmittedPhases()) > 0 {
			midway++
		}
		last = st
		return st.Rollout.Status == state.RolloutCompleted && len(off) == 0,
			fmt.Sprintf("%s phase %d; not on %s: %v", st.Rollout.Status, st.Rollout.Phase, version, off)
	})
	return last, midway
}

// RolloutInOrder fails the test when a phase admitted a cluster before every phase ahead of
// it succeeded, or a cluster (in on) runs the new version while the active rollout does not
// admit its child (<rollout>-<cluster>).
func RolloutInOrder(t *testing.T, rollout string, st *state.State, on []string) {
	t.Helper()
	for i, ph := range st.Rollout.Phases {
		if len(ph.Admitted) == 0 {
			continue
		}
		for _, ahead := range st.Rollout.Phases[:i] {
			if ahead.Status != state.PhaseSucceeded {
				t.Fatalf("phase %s admitted %v while phase %s is %s", ph.Name, ph.Admitted, ahead.Name, ahead.Status)
			}
		}
	}
	if !st.Rollout.Active() {
		return
	}
	admitted := st.Rollout.AdmittedPhases()
	for _, c := range on {
		if admitted[rollout+"-"+c] == "" {
			t.Fatalf("cluster %s runs the new version but the state does not admit it: %v", c, admitted)
		}
	}
}
