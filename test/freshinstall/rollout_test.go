//go:build e2e

package freshinstall

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

const rollout = "installed"

var fleet = []framework.Cluster{
	{Name: "dev-1", Labels: map[string]string{"env": "dev"}},
	{Name: "staging-1", Labels: map[string]string{"env": "staging"}},
	{Name: "prod-1", Labels: map[string]string{"env": "prod"}},
	{Name: "prod-2", Labels: map[string]string{"env": "prod"}},
}

// TestTheInstalledComponentsRollOut: on a running Argo CD (the harness's repo-server,
// application controller and argocd-server), cmp-phase added as the component adds it —
// its objects applied server-side with kubectl, its sidecar and agent run from the rendered
// repo-server Deployment — renders a parent through the plugin socket, rolls v1 out and
// then v2 in phase order, driven by that agent; the documented uninstall (the parent
// deleted with its children, then cmp-phase's objects) leaves nothing of cmp-phase in any
// API resource the stack did not have before.
func TestTheInstalledComponentsRollOut(t *testing.T) {
	ctx := context.Background()
	e, err := framework.Start(ctx, framework.Options{Clusters: fleet})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			e.DumpLogs(os.Stderr, 300)
		}
		e.Stop()
	}()
	if left := leftovers(snapshot(t, e)); len(left) > 0 {
		t.Fatalf("the stack holds cmp-phase before the install: %v", left)
	}
	install, err := e.InstallDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	objs, err := framework.Build(install)
	if err != nil {
		t.Fatal(err)
	}
	applyOurs(t, e, objs)
	stop := runContainers(t, e, objs)
	rollOutTwice(t, e)
	removeTheParent(t, e)
	stop()
	uninstallOurs(t, e)
	if left := leftovers(snapshot(t, e)); len(left) > 0 {
		t.Fatalf("the documented uninstall left cmp-phase behind:\n%s", strings.Join(left, "\n"))
	}
}

// applyOurs applies what the component adds besides its patches of Argo CD's own objects
// (which the harness runs itself): every object named cmp-phase-*.
func applyOurs(t *testing.T, e *framework.Env, objs []*unstructured.Unstructured) {
	t.Helper()
	var docs []string
	for _, o := range objs {
		if strings.HasPrefix(o.GetName(), "cmp-phase") {
			b, err := yaml.Marshal(o.Object)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(b))
		}
	}
	file := filepath.Join(t.TempDir(), "cmp-phase.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	kubectl(t, e, "apply", "--server-side", "-f", file)
}

// runContainers runs the sidecar and the agent of the rendered repo-server Deployment, the
// sidecar's socket in the directory the harness's repo-server dials; it returns their stop.
func runContainers(t *testing.T, e *framework.Env, objs []*unstructured.Unstructured) func() {
	t.Helper()
	pod, err := framework.PodOf(objs, "argocd-repo-server")
	if err != nil {
		t.Fatal(err)
	}
	pod.Images, pod.Shared = image(), map[string]string{"plugins": e.PluginSockDir}
	var procs []*framework.Proc
	for _, c := range []string{"cmp-phase", "cmp-phase-agent"} {
		p, err := e.RunContainer(context.Background(), pod, c)
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	return func() {
		for _, p := range procs {
			p.Stop(10 * time.Second)
		}
	}
}

// rollOutTwice deploys v1 through a parent, then rolls v2 out phase by phase.
func rollOutTwice(t *testing.T, e *framework.Env) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.Git.Commit(rollout+": v1", map[string]string{
		rollout + "/app/appset.yaml": framework.PhasedSpec(rollout, "v1", e.Git.URL),
		rollout + "/v1/cm.yaml":      framework.Workload(rollout, "v1"),
		rollout + "/v2/cm.yaml":      framework.Workload(rollout, "v2"),
	}); err != nil {
		t.Fatal(err)
	}
	if err := e.NewParent(ctx, rollout, rollout+"/app", 0); err != nil {
		t.Fatal(err)
	}
	v1, _ := e.WaitRolloutCompleted(t, rollout, "", "v1")
	if _, err := e.Git.Commit(rollout+": v2", map[string]string{rollout + "/app/appset.yaml": framework.PhasedSpec(rollout, "v2", e.Git.URL)}); err != nil {
		t.Fatal(err)
	}
	if err := e.Refresh(ctx, rollout, false); err != nil {
		t.Fatal(err)
	}
	if _, midway := e.WaitRolloutCompleted(t, rollout, v1.Rollout.Revision, "v2"); midway == 0 {
		t.Fatal("no observation caught the rollout of v2 under way: the order was never checked")
	}
	// getting started's "watch it", through the CLI's binary: completed, exit 0
	out, err := exec.Command(bins.CmpPhase, "status", rollout, "-n", "argocd", "--kubeconfig", e.Kubeconfig, "--wait", "--timeout", "1m").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Completed") {
		t.Fatalf("cmp-phase status %s --wait: %v\n%s", rollout, err, out)
	}
}

// removeTheParent is the uninstall's steps 1 and 2 for a parent whose children go: deleted
// with the argocd CLI (cascading: Argo CD's resources finalizer on), the agent removes its
// children, then it goes, and no Application keeps the agent's finalizer.
func removeTheParent(t *testing.T, e *framework.Env) {
	t.Helper()
	ctx := context.Background()
	if err := e.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if out, err := e.ArgoCDCLI(ctx, "app", "delete", rollout, "--yes", "--wait=false"); err != nil {
		t.Fatalf("argocd app delete %s: %v\n%s", rollout, err, out)
	}
	e.WaitFor(t, 4*time.Minute, "the parent and its children are gone", func(ctx context.Context) (bool, string) {
		apps, err := e.Argo.ArgoprojV1alpha1().Applications("argocd").List(ctx, listOpts)
		if err != nil {
			return false, err.Error()
		}
		var left []string
		for _, a := range apps.Items {
			left = append(left, a.Name)
		}
		return len(left) == 0, strings.Join(left, ", ")
	})
}

// uninstallOurs is the uninstall's step 4: what cmp-phase wrote and its RBAC, as the docs
// say (step 3 — the sidecar and agent taken out — is the containers stopped).
func uninstallOurs(t *testing.T, e *framework.Env) {
	t.Helper()
	for _, args := range [][]string{
		{"-n", "argocd", "delete", "configmap", "-l", contract.LabelState + "=true"},
		{"-n", "argocd", "delete", "configmap", "-l", contract.LabelPlan + "=true"},
		{"-n", "argocd", "delete", "configmap", contract.InventoryConfigMap, contract.FleetConfigMap, "--ignore-not-found"},
		{"-n", "argocd", "delete", "lease", "cmp-phase-agent", "--ignore-not-found"},
		{"-n", "argocd", "delete", "jobs", "-l", contract.LabelRollout, "--ignore-not-found"},
		{"delete", "-k", filepath.Join(framework.RepoRoot(), "manifests", "rbac"), "--ignore-not-found"},
	} {
		kubectl(t, e, args...)
	}
}
