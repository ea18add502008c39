package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/cmp-phase/cmp-phase/internal/appcache"
	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// liveReadTimeout bounds the read of a parent the cache holds as its name.
const liveReadTimeout = 10 * time.Second

// parentApp is the parent Application name, as the cache holds it or, when the cache
// holds only its name (a plan named it after its last change was cached: appcache), as
// the API server does, trimmed as the cache would. Not found: an error
// apierrors.IsNotFound knows.
func (a *Agent) parentApp(name string) (*v1alpha1.Application, error) {
	app, err := a.caches.apps.Get(name)
	if err != nil || !appcache.IsNameOnly(app) {
		return app, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), liveReadTimeout)
	defer cancel()
	live, err := a.argo.ArgoprojV1alpha1().Applications(a.opts.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read parent %s (the cache holds only its name): %w", name, err)
	}
	a.log.Debug("parent read from the API server", "parent", name)
	trimmed, err := appcache.App(live)
	if err != nil {
		return nil, err
	}
	return trimmed.(*v1alpha1.Application), nil
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
