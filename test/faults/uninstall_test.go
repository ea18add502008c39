//go:build e2e

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestUninstallLeavesNothing runs docs/install.md's uninstall sequence on the fault stack,
// last (it ends the suite's rollouts): every parent naming the plugin is deleted — "drop"
// with Argo CD's resources finalizer, so the agent removes its children first; the others
// ("keep" and the suite's earlier parents) without, so their children stay — then no
// parent keeps the agent's finalizer, the agent stops, and the objects the docs list are
// deleted. Nothing of cmp-phase's is left in the argocd namespace but the children a
// person chose to keep, detached.
func TestUninstallLeavesNothing(t *testing.T) {
	ctx := context.Background()
	sup := superviseAgent(t, env.Kubeconfig)
	stopped := false
	defer func() {
		if !stopped {
			sup.stop()
		}
	}()
	for _, r := range []string{"keep", "drop"} {
		// dev and staging only: the suite's own-API-server clusters may still be recovering
		// from what earlier tests did to them, and a child there waits for its cluster to go
		files := map[string]string{r + "/app/appset.yaml": strings.Replace(deadlineSpec(r, "v1"),
			"          argocd.argoproj.io/secret-type: cluster\n",
			"          argocd.argoproj.io/secret-type: cluster\n        matchExpressions:\n        - {key: env, operator: In, values: [dev, staging]}\n", 1),
			r + "/v1/cm.yaml": framework.Workload(r, "v1")}
		if _, err := env.Git.Commit(r+": v1", files); err != nil {
			t.Fatal(err)
		}
		if err := env.NewParent(ctx, r, r+"/app", 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []string{"keep", "drop"} {
		waitRolloutOf(t, r, 5*time.Minute, r+" deployed", func(st *state.State) bool { return st.Rollout.Status == state.RolloutCompleted })
	}
	cascade(ctx, t, "drop")

	// 1. every parent naming the plugin goes: "drop" with its children, the others without
	for _, p := range parents(ctx, t) {
		if err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env.WaitFor(t, 4*time.Minute, "every parent gone, drop's children with it", func(ctx context.Context) (bool, string) {
		left, kids := parents(ctx, t), childrenOf(ctx, t, "drop")
		return len(left) == 0 && len(kids) == 0, fmt.Sprintf("%d parents, drop's children %v", len(left), kids)
	})
	// 2. no Application keeps the agent's finalizer
	for _, app := range apps(ctx, t) {
		if slices.Contains(app.Finalizers, contract.FinalizerChildren) {
			t.Fatalf("%s keeps the agent's finalizer after its parent went", app.Name)
		}
	}
	// 3. the agent stops (the sidecar writes nothing; the stack's end removes it)
	sup.stop()
	stopped = true
	// 4. what cmp-phase wrote, deleted as the docs' commands do
	deleteWhatItWrote(ctx, t)
	assertNothingLeft(ctx, t)
	if kids := childrenOf(ctx, t, "keep"); len(kids) != 4 {
		t.Fatalf("the children a person kept are gone: %v", kids)
	}
}

// cascade gives parent Argo CD's resources finalizer and waits for the agent's beside it.
func cascade(ctx context.Context, t *testing.T, parent string) {
	t.Helper()
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": []string{contract.FinalizerResources}}})
	if _, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Patch(ctx, parent, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	env.WaitFor(t, time.Minute, "the agent's finalizer on "+parent, func(ctx context.Context) (bool, string) {
		app, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Get(ctx, parent, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return slices.Contains(app.Finalizers, contract.FinalizerChildren), fmt.Sprint(app.Finalizers)
	})
}

func apps(ctx context.Context, t *testing.T) []v1alpha1.Application {
	t.Helper()
	list, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// parents are the Applications whose source names the plugin.
func parents(ctx context.Context, t *testing.T) []v1alpha1.Application {
	t.Helper()
	return slices.DeleteFunc(apps(ctx, t), func(a v1alpha1.Application) bool {
		return a.Spec.Source == nil || a.Spec.Source.Plugin == nil || a.Spec.Source.Plugin.Name != contract.PluginName
	})
}

// childrenOf are the names of rollout's child Applications not being deleted.
func childrenOf(ctx context.Context, t *testing.T, rollout string) []string {
	t.Helper()
	var out []string
	for _, a := range apps(ctx, t) {
		if a.Labels[contract.LabelRollout] == rollout && a.DeletionTimestamp == nil {
			out = append(out, a.Name)
		}
	}
	return out
}

// deleteWhatItWrote is step 4 of the docs' uninstall, through the API.
func deleteWhatItWrote(ctx context.Context, t *testing.T) {
	t.Helper()
	cms := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace)
	for _, l := range []string{contract.LabelState, contract.LabelPlan} {
		if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: l + "=" + contract.MarkerValue}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{contract.InventoryConfigMap, contract.FleetConfigMap} {
		if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	if err := env.Kube.CoordinationV1().Leases(framework.ArgoNamespace).Delete(ctx, "cmp-phase-agent", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	bg := metav1.DeletePropagationBackground
	if err := env.Kube.BatchV1().Jobs(framework.ArgoNamespace).DeleteCollection(ctx, metav1.DeleteOptions{PropagationPolicy: &bg}, metav1.ListOptions{LabelSelector: contract.LabelJobRollout}); err != nil {
		t.Fatal(err)
	}
}

// assertNothingLeft: no state, plan, inventory or fleet ConfigMap, no Lease, no hook Job,
// no parent, and no Application with the agent's finalizer is left.
func assertNothingLeft(ctx context.Context, t *testing.T) {
	t.Helper()
	env.WaitFor(t, time.Minute, "nothing of cmp-phase left", func(ctx context.Context) (bool, string) {
		cms, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		var left []string
		for _, cm := range cms.Items {
			if cm.Labels[contract.LabelState] != "" || cm.Labels[contract.LabelPlan] != "" || cm.Name == contract.InventoryConfigMap || cm.Name == contract.FleetConfigMap {
				left = append(left, "configmap/"+cm.Name)
			}
		}
		if _, err := env.Kube.CoordinationV1().Leases(framework.ArgoNamespace).Get(ctx, "cmp-phase-agent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			left = append(left, fmt.Sprint("lease/cmp-phase-agent: ", err))
		}
		jobs, err := env.Kube.BatchV1().Jobs(framework.ArgoNamespace).List(ctx, metav1.ListOptions{LabelSelector: contract.LabelJobRollout})
		if err != nil {
			return false, err.Error()
		}
		for _, j := range jobs.Items {
			left = append(left, "job/"+j.Name)
		}
		for _, a := range apps(ctx, t) {
			if slices.Contains(a.Finalizers, contract.FinalizerChildren) || a.Spec.Source != nil && a.Spec.Source.Plugin != nil && a.Spec.Source.Plugin.Name == contract.PluginName {
				left = append(left, "application/"+a.Name)
			}
		}
		return len(left) == 0, fmt.Sprint("left: ", left)
	})
}
