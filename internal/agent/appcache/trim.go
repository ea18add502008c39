package appcache

import (
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/agent/observe"
)

// Meta drops managedFields before caching: the agent never reads them.
func Meta(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// App keeps of an Application what the agent reads: the resource tree and history can
// be large and are dropped before caching, and of the sync result's resources only the
// failed ones' last message lines (observe.FailedResources), which tell why a sync failed.
func App(obj any) (any, error) {
	app, ok := obj.(*v1alpha1.Application)
	if !ok {
		return Meta(obj)
	}
	app.ManagedFields = nil
	app.Status.Resources, app.Status.History = nil, nil
	if op := app.Status.OperationState; op != nil && op.SyncResult != nil {
		op.SyncResult.Resources = observe.FailedResources(op.SyncResult.Resources)
	}
	return app, nil
}

// Secret keeps only what the inventory publishes: credentials never enter the cache.
func Secret(obj any) (any, error) {
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return Meta(obj)
	}
	s.ManagedFields = nil
	keep := map[string][]byte{}
	for _, k := range []string{"name", "server", "project"} {
		if v, ok := s.Data[k]; ok {
			keep[k] = v
		}
	}
	s.Data, s.StringData = keep, nil
	delete(s.Annotations, corev1.LastAppliedConfigAnnotation)
	return s, nil
}
