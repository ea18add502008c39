package agent

import (
	"context"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// parentApp is the parent Application name: as the cache holds it or, when the cache
// holds only its name (appcache: the agent caches whole only what it steers), as the API
// server does. Not found: an error apierrors.IsNotFound knows.
func (a *Agent) parentApp(ctx context.Context, name string) (*v1alpha1.Application, error) {
	cached := func(context.Context, string) (*v1alpha1.Application, error) { return a.caches.apps.Get(name) }
	live := func(ctx context.Context, name string) (*v1alpha1.Application, error) {
		return a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Get(ctx, name, metav1.GetOptions{})
	}
	return a.live.Parent(ctx, name, cached, live)
}

// knowParents notes every parent the cached plans name, before the Applications informer
// lists: the parents that exist are cached whole from the start.
func (a *Agent) knowParents() {
	plans, err := a.caches.plans.List(labels.Everything())
	if err != nil {
		return // a cache List does not fail; a parent cached as its name is read live
	}
	for _, cm := range plans {
		if parent, rollout := cm.Annotations[contract.AnnotationParent], cm.Labels[contract.LabelRollout]; parent != "" && rollout != "" {
			a.parents.Set(parent, rollout)
		}
	}
}
