//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/agent/rerender"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/statestore"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestStateStoreNeverLosesAConcurrentUpdate: two writers add children to one state
// ConfigMap at once through read-modify-write with resourceVersion; every addition lands,
// an unchanged decision writes nothing, and an over-budget state is refused.
func TestStateStoreNeverLosesAConcurrentUpdate(t *testing.T) {
	ctx := context.Background()
	store := &statestore.Store{ConfigMaps: env.Kube.CoreV1(), Namespace: framework.ArgoNamespace, Name: contract.StateConfigMap("store-test")}
	add := func(child string) statestore.Decide {
		return func(cur *state.State) (*state.State, error) {
			next := cur.Clone()
			if next == nil {
				next = &state.State{Schema: state.Schema, Revisions: map[string]json.RawMessage{"r1": json.RawMessage(`{}`)}, Deployed: "r1"}
			}
			next.Generation++
			i, _ := slices.BinarySearch(next.Children, child)
			next.Children = slices.Insert(next.Children, i, child)
			return next, nil
		}
	}
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if _, _, err := store.Update(ctx, add(fmt.Sprintf("w%d-%02d", w, i))); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	final, wrote, err := store.Update(ctx, func(cur *state.State) (*state.State, error) { return cur, nil })
	if err != nil || wrote {
		t.Fatalf("an unchanged decision writes nothing: wrote=%v err=%v", wrote, err)
	}
	if len(final.Children) != 20 || final.Generation != 20 {
		t.Fatalf("lost updates: %d children at generation %d", len(final.Children), final.Generation)
	}
	_, _, err = store.Update(ctx, func(cur *state.State) (*state.State, error) {
		next := cur.Clone()
		next.Generation++
		for i := range 200000 {
			next.Children = append(next.Children, fmt.Sprintf("%08x-%d", i*2654435761, i))
		}
		slices.Sort(next.Children)
		return next, nil
	})
	if err == nil || !strings.Contains(err.Error(), "over the budget") {
		t.Fatalf("an over-budget state must be refused, got %v", err)
	}
	if again, _, _ := store.Update(ctx, func(cur *state.State) (*state.State, error) { return cur, nil }); again.Generation != 20 {
		t.Fatal("the refused write changed the stored state")
	}
}

// TestSetPhaseGenKeepsTheParentsOtherPluginEnv: the re-render bump touches only PHASE_GEN.
func TestSetPhaseGenKeepsTheParentsOtherPluginEnv(t *testing.T) {
	ctx := context.Background()
	parent := &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: "envtest-parent", Namespace: framework.ArgoNamespace},
		Spec: v1alpha1.ApplicationSpec{Project: "default",
			Source: &v1alpha1.ApplicationSource{RepoURL: env.Git.URL, Path: "nowhere", Plugin: &v1alpha1.ApplicationSourcePlugin{
				Name: contract.PluginName, Env: v1alpha1.Env{{Name: contract.EnvSyncOptions, Value: "Prune=false"}}}},
			Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: framework.ArgoNamespace}},
	}
	if _, err := env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Create(ctx, parent, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, gen := range []int64{3, 4, 4} {
		if err := rerender.SetPhaseGen(ctx, env.Argo, framework.ArgoNamespace, "envtest-parent", gen); err != nil {
			t.Fatal(err)
		}
	}
	a, err := env.App(ctx, "envtest-parent")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(a.Spec.Source.Plugin.Env.Environ()); got != fmt.Sprintf("[%s=Prune=false %s=4]", contract.EnvSyncOptions, contract.EnvPhaseGen) {
		t.Fatalf("plugin env %s", got)
	}
	_ = env.Argo.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Delete(ctx, "envtest-parent", metav1.DeleteOptions{})
}
