package e2e

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/inputs"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// publishInventory writes the inventory ConfigMap from the fleet, as the agent does from
// the cluster Secrets.
func publishInventory(ctx context.Context) error {
	inv := &inventory.Inventory{}
	for _, c := range env.Clusters {
		labels := map[string]string{"argocd.argoproj.io/secret-type": "cluster"}
		maps.Copy(labels, c.Labels)
		inv.Clusters = append(inv.Clusters, inventory.Cluster{Name: c.Name, Server: c.Server, Labels: labels})
	}
	b, err := inv.Encode()
	if err != nil {
		return err
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: inputs.InventoryConfigMap, Namespace: "argocd"},
		Data:       map[string]string{inventory.Key: string(b)},
	}
	_, err = env.Kube.CoreV1().ConfigMaps("argocd").Create(ctx, cm, metav1.CreateOptions{})
	return err
}

// revisionOf parses a spec and returns its revision id and body.
func revisionOf(t *testing.T, yaml string) (string, []byte) {
	t.Helper()
	s, err := spec.Parse("appset.yaml", []byte(yaml), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	_, body, id, err := s.Revision()
	if err != nil {
		t.Fatal(err)
	}
	return id, body
}

// putState writes a rollout's state ConfigMap (create or update).
func putState(ctx context.Context, t *testing.T, rollout string, st *state.State) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: inputs.StateConfigMap(rollout), Namespace: "argocd"}}
	if err := state.ToConfigMap(st, cm); err != nil {
		t.Fatal(err)
	}
	putConfigMap(ctx, t, cm)
}

func putConfigMap(ctx context.Context, t *testing.T, cm *corev1.ConfigMap) {
	t.Helper()
	cms := env.Kube.CoreV1().ConfigMaps(cm.Namespace)
	cur, err := cms.Get(ctx, cm.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
	case err == nil:
		cm.ResourceVersion = cur.ResourceVersion
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// setPhaseGen sets the parent's plugin env PHASE_GEN, as the agent does after a state write.
func setPhaseGen(ctx context.Context, t *testing.T, parent string, gen int64) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"source":{"plugin":{"env":[{"name":"PHASE_GEN","value":"%d"}]}}}}`, gen)
	_, err := env.Argo.ArgoprojV1alpha1().Applications("argocd").Patch(ctx, parent, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// newParent creates a parent Application rendered by cmp-phase.
func newParent(ctx context.Context, t *testing.T, name, path string, gen int64) {
	t.Helper()
	plugin := &v1alpha1.ApplicationSourcePlugin{Name: "cmp-phase-v1"}
	if gen > 0 {
		plugin.Env = v1alpha1.Env{{Name: "PHASE_GEN", Value: fmt.Sprint(gen)}}
	}
	parent := &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "argocd"},
		Spec: v1alpha1.ApplicationSpec{
			Project:     "default",
			Source:      &v1alpha1.ApplicationSource{RepoURL: env.Git.URL, TargetRevision: "HEAD", Path: path, Plugin: plugin},
			Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: "argocd"},
			SyncPolicy:  &v1alpha1.SyncPolicy{Automated: &v1alpha1.SyncPolicyAutomated{}},
		},
	}
	if _, err := env.Argo.ArgoprojV1alpha1().Applications("argocd").Create(ctx, parent, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
