//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/status"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// cli runs the real cmp-phase CLI against the stack.
func (r *phased) cli(args ...string) string {
	r.t.Helper()
	out, err := exec.Command(cmpPhaseBin, append(args, "--kubeconfig", env.Kubeconfig, "-n", framework.ArgoNamespace)...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("cmp-phase %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// cliCode runs the real cmp-phase binary and returns its exit code and output.
func (r *phased) cliCode(args ...string) (int, string) {
	r.t.Helper()
	out, err := exec.Command(cmpPhaseBin, append(args, "--kubeconfig", env.Kubeconfig, "-n", framework.ArgoNamespace)...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	case err != nil:
		r.t.Fatalf("cmp-phase %v: %v", args, err)
	}
	return 0, string(out)
}

// waitState waits until cond holds of the state.
func (r *phased) waitState(what string, cond func(*state.State) bool) *state.State {
	r.t.Helper()
	var last *state.State
	env.WaitFor(r.t, 4*time.Minute, what, func(ctx context.Context) (bool, string) {
		st, err := r.state(ctx)
		if err != nil || st.Rollout == nil {
			return false, fmt.Sprint(err)
		}
		last = st
		return cond(st), fmt.Sprintf("%s phase %d: %s", st.Rollout.Status, st.Rollout.Phase, st.Rollout.Reason)
	})
	return last
}

// TestSteeringARollout drives real rollouts with the real CLI: a pause during a soak holds
// past its end and resume continues; approve opens a maxUpdate: 0 step; skip lets a
// rollout whose new revision is Degraded on one cluster finish, reporting it skipped; abort
// stops and rollback returns the admitted clusters to the old revision.
func TestSteeringARollout(t *testing.T) {
	t.Parallel()
	t.Run("pause and resume", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		r := newPhased(t, "steer-pause", "rollback")
		defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
		rev := r.commit("v1", map[string]string{"v1": framework.Workload(r.name, "v1")})
		newParent(ctx, t, r.name, r.name+"/app", 0)
		st := r.waitState("staging soaks", func(st *state.State) bool { return st.Rollout.Phases[1].Status == state.PhaseSoaking })
		r.cli("pause", r.name, "--reason", "error budget burning")
		soakEnd := *st.Rollout.Phases[1].SoakUntil
		time.Sleep(time.Until(soakEnd.Add(8 * time.Second)))
		st, _ = r.state(ctx)
		if st.Rollout.Phase != 1 || st.Paused == nil || st.Paused.By == "" {
			t.Fatalf("the pause did not hold past the soak's end: phase %d paused %+v", st.Rollout.Phase, st.Paused)
		}
		if out := r.cli("status", r.name); !strings.Contains(out, "PAUSED") || !strings.Contains(out, "error budget burning") {
			t.Fatalf("status does not show the pause:\n%s", out)
		}
		r.cli("resume", r.name, "--reason", "budget back")
		r.until("the rollout completes after resume", rev, rollout.StatusCompleted, everywhere("v1"))
	})
	t.Run("approve", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		r := newPhased(t, "steer-approve", "stop")
		spec := gatedSpec(r.name)
		if _, err := env.Git.Commit(r.name+": v1", map[string]string{r.name + "/app/appset.yaml": spec, r.name + "/v1/cm.yaml": framework.Workload(r.name, "v1")}); err != nil {
			t.Fatal(err)
		}
		rev, _ := revisionOf(t, spec)
		defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
		newParent(ctx, t, r.name, r.name+"/app", 0)
		r.waitState("the gated step waits", func(st *state.State) bool { return st.Rollout.Phase == 1 })
		time.Sleep(5 * time.Second)
		if st, _ := r.state(ctx); len(st.Rollout.Phases[1].Admitted) != 0 {
			t.Fatal("maxUpdate: 0 admitted someone without approval")
		}
		r.cli("approve", r.name, "step-2", "--reason", "change CHG-42 approved")
		r.until("the approved step completes", rev, rollout.StatusCompleted, everywhere("v1"))
		st, _ := r.state(ctx)
		if !strings.Contains(st.Rollout.Phases[1].ApprovedBy, "change CHG-42 approved") {
			t.Fatalf("approved by %q", st.Rollout.Phases[1].ApprovedBy)
		}
	})
	t.Run("skip", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		r := newPhased(t, "steer-skip", "stop")
		defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
		r.firstDeployment(ctx, framework.DegradedWorkload(r.name, "v2", "prod-2"))
		r2 := r.commit("v2", nil)
		r.cli("skip", r.name, r.name+"-prod-2", "--reason", "prod-2 is being repaired")
		if err := env.Refresh(ctx, r.name, false); err != nil {
			t.Fatal(err)
		}
		want := everywhere("v2")
		want["prod-2"] = "v1"
		r.until("the rollout finishes around the skipped cluster", r2, rollout.StatusCompleted, want)
		var doc status.Doc
		if err := json.Unmarshal([]byte(r.cli("status", r.name, "-o", "json")), &doc); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(doc.Skipped, []string{r.name + "-prod-2"}) {
			t.Fatalf("status -o json reports skipped %v", doc.Skipped)
		}
	})
	t.Run("abort then rollback", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		r := newPhased(t, "steer-abort", "stop")
		defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
		r1 := r.firstDeployment(ctx, framework.Workload(r.name, "v2"))
		r2 := r.commit("v2", nil)
		if err := env.Refresh(ctx, r.name, false); err != nil {
			t.Fatal(err)
		}
		r.waitState("v2 reaches staging", func(st *state.State) bool { return st.Rollout.Revision == r2 && st.Rollout.Phase >= 1 })
		r.cli("abort", r.name, "--reason", "wrong image")
		st := r.waitState("the rollout stops", func(st *state.State) bool { return st.Rollout.Status == rollout.StatusStopped })
		if !strings.Contains(st.Rollout.Reason, "aborted by") || !strings.Contains(st.Rollout.Reason, "wrong image") {
			t.Fatalf("reason %q", st.Rollout.Reason)
		}
		r.cli("rollback", r.name, "--reason", "back to v1")
		r.until("the admitted clusters return to v1", r2, rollout.StatusRolledBack, everywhere("v1"))
		if st, _ := r.state(ctx); st.Deployed != r1 {
			t.Fatalf("deployed %s, want v1's %s", st.Deployed, r1)
		}
	})
}

// gatedSpec is a RollingSync spec whose second step has maxUpdate: 0 (seed 003's gate).
func gatedSpec(name string) string {
	return strings.NewReplacer("ROLLOUT", name, "REPO", env.Git.URL).Replace(`apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: ROLLOUT
  namespace: argocd
spec:
  generators:
  - clusters:
      selector:
        matchLabels:
          argocd.argoproj.io/secret-type: cluster
  strategy:
    type: RollingSync
    rollingSync:
      steps:
      - matchExpressions:
        - {key: env, operator: In, values: [dev, staging]}
      - matchExpressions:
        - {key: env, operator: In, values: [prod]}
        maxUpdate: 0
  template:
    metadata:
      name: 'ROLLOUT-{{name}}'
      labels:
        env: '{{metadata.labels.env}}'
    spec:
      project: default
      source:
        repoURL: REPO
        targetRevision: HEAD
        path: ROLLOUT/v1
      destination:
        server: '{{server}}'
        namespace: '{{name}}'
      syncPolicy:
        automated: {}
`)
}
