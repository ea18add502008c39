//go:build e2e

package compat

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

const name = "compat"

// TestRenderAndOnePhasedRollout: on the oldest supported Argo CD, a parent renders one
// child per cluster through the cmp-phase sidecar and its first deployment completes; then
// v2 rolls out dev → staging → prod in two 50% batches, driven by the real agent, to
// Completed on every cluster. At every observation no phase admits before the ones ahead of
// it succeeded and no cluster runs v2 before the state admits it.
func TestRenderAndOnePhasedRollout(t *testing.T) {
	ctx := context.Background()
	t.Logf("Argo CD %s", env.Tools.ArgoCDVersion)
	defer startAgent(t).Stop(5 * time.Second)
	if _, err := env.Git.Commit(name+": v1", map[string]string{
		name + "/app/appset.yaml": framework.PhasedSpec(name, "v1", env.Git.URL),
		name + "/v1/cm.yaml":      framework.Workload(name, "v1"),
		name + "/v2/cm.yaml":      framework.Workload(name, "v2"),
	}); err != nil {
		t.Fatal(err)
	}
	if err := env.NewParent(ctx, name, name+"/app", 0); err != nil {
		t.Fatal(err)
	}
	v1, _ := env.WaitRolloutCompleted(t, name, "", "v1")
	renderedThroughThePlugin(ctx, t)

	if _, err := env.Git.Commit(name+": v2", map[string]string{name + "/app/appset.yaml": framework.PhasedSpec(name, "v2", env.Git.URL)}); err != nil {
		t.Fatal(err)
	}
	if err := env.Refresh(ctx, name, false); err != nil {
		t.Fatal(err)
	}
	st, midway := env.WaitRolloutCompleted(t, name, v1.Rollout.Revision, "v2")
	if midway == 0 {
		t.Fatal("no observation caught the rollout of v2 under way: the order was never checked")
	}
	var started []string
	for _, e := range st.Rollout.History {
		if e.Event == rollout.EvPhaseStarted {
			started = append(started, strings.Fields(e.Message)[1])
		}
	}
	if want := []string{"dev", "staging", "prod-half", "prod"}; !slices.Equal(started, want) {
		t.Fatalf("phases started %v, want %v", started, want)
	}
}

// startAgent runs the agent as an install does, its metrics on a free port.
func startAgent(t *testing.T) *framework.Proc {
	port, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p, err := env.Start(framework.ProcSpec{Name: "agent", Path: agentBin, Args: []string{
		"--namespace", framework.ArgoNamespace, "--kubeconfig", env.Kubeconfig, "--log-level", "debug",
		"--metrics-addr", "127.0.0.1:" + strconv.Itoa(port)}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// renderedThroughThePlugin checks the parent's source is the plugin and that it manages
// one child Application per cluster, each Synced and Healthy.
func renderedThroughThePlugin(ctx context.Context, t *testing.T) {
	t.Helper()
	parent, err := env.App(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if parent.Status.SourceType != v1alpha1.ApplicationSourceTypePlugin {
		t.Fatalf("the parent's source type is %q, want Plugin", parent.Status.SourceType)
	}
	var children []string
	for _, r := range parent.Status.Resources {
		if r.Kind == "Application" {
			children = append(children, r.Name)
		}
	}
	if len(children) != len(fleet) {
		t.Fatalf("the parent manages %v, want one child per cluster", children)
	}
	for _, c := range children {
		a, err := env.App(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if ok, seen := framework.AppSyncedHealthy(a); !ok {
			t.Fatalf("child %s", seen)
		}
	}
}
