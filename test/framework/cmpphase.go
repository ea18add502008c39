package framework

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// CmpPhaseSidecar runs a cmp-phase binary as the sidecar does in the repo-server pod: the
// in-process CMP server on the plugin socket, reading ConfigMaps through an informer.
func CmpPhaseSidecar(bin string) func(e *Env) ProcSpec {
	return func(e *Env) ProcSpec {
		if e.SidecarMetrics == "" {
			if port, err := FreePort(); err == nil {
				e.SidecarMetrics = "127.0.0.1:" + strconv.Itoa(port)
			}
		}
		args := []string{
			"serve", "--socket-dir", e.PluginSockDir, "--plugin-name", contract.PluginName,
			"--kubeconfig", e.Kubeconfig, "--state-namespace", ArgoNamespace, "--work-dir", e.Dir + "/tmp",
			"--stale-wait", "5s", "--log-level", "debug",
		}
		if e.SidecarMetrics != "" {
			args = append(args, "--metrics-addr", e.SidecarMetrics)
		}
		return ProcSpec{Name: "cmp-phase-serve", Path: bin, Args: args}
	}
}

// PublishInventory writes the inventory ConfigMap from the clusters, as the agent does from
// the cluster Secrets.
func (e *Env) PublishInventory(ctx context.Context) error {
	b, err := e.Inventory().Encode()
	if err != nil {
		return err
	}
	return e.PutConfigMap(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: contract.InventoryConfigMap, Namespace: ArgoNamespace},
		Data:       map[string]string{contract.InventoryKey: string(b)},
	})
}

// Inventory is the clusters' inventory, as the agent publishes it from the cluster Secrets.
func (e *Env) Inventory() *inventory.Inventory {
	inv := &inventory.Inventory{}
	for _, c := range e.Clusters {
		labels := map[string]string{contract.LabelSecretType: contract.SecretTypeCluster}
		maps.Copy(labels, c.Labels)
		inv.Clusters = append(inv.Clusters, inventory.Cluster{Name: c.Name, Server: c.Server, Labels: labels})
	}
	return inv
}

// PutState writes a rollout's state ConfigMap, labelled as the agent's store labels it
// (the agent and the sidecar watch state ConfigMaps by that label).
func (e *Env) PutState(ctx context.Context, rollout string, st *state.State) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.StateConfigMap(rollout), Namespace: ArgoNamespace,
		Labels: map[string]string{contract.LabelState: contract.MarkerValue}}}
	if err := state.ToConfigMap(st, cm); err != nil {
		return err
	}
	return e.PutConfigMap(ctx, cm)
}

// State reads a rollout's state ConfigMap, as the agent wrote it.
func (e *Env) State(ctx context.Context, rollout string) (*state.State, error) {
	cm, err := e.Kube.CoreV1().ConfigMaps(ArgoNamespace).Get(ctx, contract.StateConfigMap(rollout), metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read the state of %s: %w", rollout, err)
	}
	return state.FromConfigMap(cm)
}

// PutConfigMap creates or replaces a ConfigMap.
func (e *Env) PutConfigMap(ctx context.Context, cm *corev1.ConfigMap) error {
	cms := e.Kube.CoreV1().ConfigMaps(cm.Namespace)
	cur, err := cms.Get(ctx, cm.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
	case err == nil:
		cm.ResourceVersion = cur.ResourceVersion
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("put configmap %s: %w", cm.Name, err)
	}
	return nil
}

// SetPhaseGen sets the parent's plugin env PHASE_GEN, as the agent does after a state write.
func (e *Env) SetPhaseGen(ctx context.Context, parent string, gen int64) error {
	patch := fmt.Sprintf(`{"spec":{"source":{"plugin":{"env":[{"name":%q,"value":"%d"}]}}}}`, contract.EnvPhaseGen, gen)
	_, err := e.Argo.ArgoprojV1alpha1().Applications(ArgoNamespace).Patch(ctx, parent, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("set %s of %s: %w", contract.EnvPhaseGen, parent, err)
	}
	return nil
}

// NewParent creates an auto-synced parent Application rendered by cmp-phase from path,
// changed by opts (e.g. WithShard).
func (e *Env) NewParent(ctx context.Context, name, path string, gen int64, opts ...ParentOption) error {
	return e.newParent(ctx, name, path, gen, true, opts...)
}

// ParentOption changes a parent NewParent creates.
type ParentOption func(*v1alpha1.Application)

// WithShard makes the parent render shard k of n of its rollout (plugin env SHARD=k/n).
func WithShard(k, n int) ParentOption {
	return func(a *v1alpha1.Application) {
		p := a.Spec.Source.Plugin
		p.Env = append(p.Env, &v1alpha1.EnvEntry{Name: contract.EnvShard, Value: fmt.Sprintf("%d/%d", k, n)})
	}
}

// WithGeneratePaths sets the parent's manifest-generate-paths annotation (paths relative
// to its path, ';'-separated): a git webhook's push then refreshes the parent only when it
// touches one of them. They must cover the parent's spec and every path its children
// deploy from, or a commit to a child's content never reaches the parent's render.
func WithGeneratePaths(paths string) ParentOption {
	return func(a *v1alpha1.Application) {
		if a.Annotations == nil {
			a.Annotations = map[string]string{}
		}
		a.Annotations[contract.AnnotationGeneratePaths] = paths
	}
}

// NewManualParent is NewParent without automated sync: a person syncs it (after
// argocd app diff shows what the next phase changes).
func (e *Env) NewManualParent(ctx context.Context, name, path string) error {
	return e.newParent(ctx, name, path, 0, false)
}

func (e *Env) newParent(ctx context.Context, name, path string, gen int64, automated bool, opts ...ParentOption) error {
	plugin := &v1alpha1.ApplicationSourcePlugin{Name: contract.PluginName}
	if gen > 0 {
		plugin.Env = v1alpha1.Env{{Name: contract.EnvPhaseGen, Value: fmt.Sprint(gen)}}
	}
	parent := &v1alpha1.Application{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ArgoNamespace},
		Spec: v1alpha1.ApplicationSpec{
			Project:     "default",
			Source:      &v1alpha1.ApplicationSource{RepoURL: e.Git.URL, TargetRevision: "HEAD", Path: path, Plugin: plugin},
			Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: ArgoNamespace},
			// As docs/agent.md recommends for parents: a sync applies only the children whose
			// render changed (the agent moved the admitted ones already), not all of them.
			SyncPolicy: &v1alpha1.SyncPolicy{Automated: &v1alpha1.SyncPolicyAutomated{}, SyncOptions: v1alpha1.SyncOptions{"ApplyOutOfSyncOnly=true"}},
		},
	}
	if !automated {
		parent.Spec.SyncPolicy = nil
	}
	for _, o := range opts {
		o(parent)
	}
	if _, err := e.Argo.ArgoprojV1alpha1().Applications(ArgoNamespace).Create(ctx, parent, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create parent %s: %w", name, err)
	}
	return nil
}
