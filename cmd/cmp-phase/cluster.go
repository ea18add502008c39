package main

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/startup/kubeclient"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// readFromCluster GETs the state and inventory ConfigMaps once (generate under the stock
// argocd-cmp-server; serve uses informers instead).
func readFromCluster(ctx context.Context, o generateOptions, rollout string, kc kubernetes.Interface) (*state.State, *inventory.Inventory, error) {
	if kc == nil {
		cfg, err := kubeclient.Config(o.kubeconfig)
		if err != nil {
			return nil, nil, err
		}
		if kc, err = kubernetes.NewForConfig(cfg); err != nil {
			return nil, nil, fmt.Errorf("kube client: %w", err)
		}
	}
	cms := kc.CoreV1().ConfigMaps(o.stateNamespace)
	icm, err := cms.Get(ctx, contract.InventoryConfigMap, metav1.GetOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("read inventory configmap %s/%s: %w", o.stateNamespace, contract.InventoryConfigMap, err)
	}
	inv, err := inputs.InventoryFromConfigMap(icm)
	if err != nil {
		return nil, nil, err
	}
	scm, err := cms.Get(ctx, contract.StateConfigMap(rollout), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, inv, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read state configmap: %w", err)
	}
	st, err := state.FromConfigMap(scm)
	if err != nil {
		return nil, nil, err
	}
	return st, inv, nil
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// specGoneFromCluster is the render of a parent whose spec is gone from git, under the stock
// CMP server: its rollout is found by the plan's parent annotation (render.SpecGone decides).
func specGoneFromCluster(ctx context.Context, o generateOptions, parent string, loadErr error) ([][]byte, error) {
	cfg, err := kubeclient.Config(o.kubeconfig)
	if err != nil {
		return nil, err
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kube client: %w", err)
	}
	plans, err := kc.CoreV1().ConfigMaps(o.stateNamespace).List(ctx, metav1.ListOptions{LabelSelector: contract.PlanSelector})
	if err != nil {
		return nil, fmt.Errorf("list plan configmaps: %w", err)
	}
	for _, cm := range plans.Items {
		name := cm.Labels[contract.LabelRollout]
		if parent == "" || cm.Annotations[contract.AnnotationParent] != parent || name == "" {
			continue
		}
		st, _, err := readFromCluster(ctx, o, name, kc)
		if err != nil {
			return nil, err
		}
		return render.SpecGone(name, o.stateNamespace, st, loadErr)
	}
	return nil, loadErr
}
