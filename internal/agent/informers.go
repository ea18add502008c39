package agent

import (
	"fmt"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoinformers "github.com/argoproj/argo-cd/v3/pkg/client/informers/externalversions"
	argolisters "github.com/argoproj/argo-cd/v3/pkg/client/listers/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/cmp-phase/cmp-phase/internal/agent/appcache"
	"github.com/cmp-phase/cmp-phase/internal/agent/clustersource"
	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// caches are the agent's trimmed, namespace-scoped informers.
type caches struct {
	apps    argolisters.ApplicationNamespaceLister
	plans   corelisters.ConfigMapNamespaceLister
	states  corelisters.ConfigMapNamespaceLister
	secrets corelisters.SecretNamespaceLister
	fleet   corelisters.ConfigMapNamespaceLister // the fleet ConfigMap only
	synced  []cache.InformerSynced
	start   func(stop <-chan struct{})

	// projects are the AppProjects, for their sync windows.
	projects argolisters.AppProjectNamespaceLister
	// children lists a rollout's children by an index of their rollout label (a label
	// selector over the lister walks every Application of the namespace).
	children func(rollout string) ([]*v1alpha1.Application, error)
}

// byRollout is the Application index of the rollout label.
const byRollout = "rollout"

// childIndex indexes an Application by its rollout label.
func childIndex(obj any) ([]string, error) {
	if m, ok := obj.(metav1.Object); ok && m.GetLabels()[contract.LabelRollout] != "" {
		return []string{m.GetLabels()[contract.LabelRollout]}, nil
	}
	return nil, nil
}

// childrenOf is the lookup of an Applications indexer that has childIndex.
func childrenOf(idx cache.Indexer) func(string) ([]*v1alpha1.Application, error) {
	return func(rollout string) ([]*v1alpha1.Application, error) {
		objs, err := idx.ByIndex(byRollout, rollout)
		if err != nil {
			return nil, fmt.Errorf("list children of %s: %w", rollout, err)
		}
		out := make([]*v1alpha1.Application, 0, len(objs))
		for _, o := range objs {
			if app, ok := o.(*v1alpha1.Application); ok {
				out = append(out, app)
			}
		}
		return out, nil
	}
}

func (a *Agent) newCaches(resync time.Duration) (*caches, error) {
	ns := a.opts.Namespace
	af := argoinformers.NewSharedInformerFactoryWithOptions(a.argo, resync, argoinformers.WithNamespace(ns), argoinformers.WithTransform(a.parents.Transform))
	labelled := func(sel string, trim cache.TransformFunc) informers.SharedInformerFactory {
		return informers.NewSharedInformerFactoryWithOptions(a.kube, resync, informers.WithNamespace(ns), informers.WithTransform(trim),
			informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = sel }))
	}
	plans := contract.PlanSelector
	if a.opts.Selector != "" {
		plans += "," + a.opts.Selector
	}
	pf, sf, cf := labelled(plans, appcache.Meta), labelled(contract.StateSelector, appcache.Meta), labelled(contract.ClusterSecretSelector, appcache.Secret)
	ff := informers.NewSharedInformerFactoryWithOptions(a.kube, resync, informers.WithNamespace(ns), informers.WithTransform(appcache.Meta),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + a.fleetName() }))
	appInf, planInf := af.Argoproj().V1alpha1().Applications(), pf.Core().V1().ConfigMaps()
	stateInf, secInf, fleetInf := sf.Core().V1().ConfigMaps(), cf.Core().V1().Secrets(), ff.Core().V1().ConfigMaps()
	c := &caches{
		apps: appInf.Lister().Applications(ns), plans: planInf.Lister().ConfigMaps(ns),
		states: stateInf.Lister().ConfigMaps(ns), fleet: fleetInf.Lister().ConfigMaps(ns),
	}
	watched := []cache.SharedIndexInformer{appInf.Informer(), planInf.Informer(), stateInf.Informer(), fleetInf.Informer()}
	if a.opts.InventoryFrom != clustersource.FromArgoCD { // else no list or watch on Secrets
		c.secrets = secInf.Lister().Secrets(ns)
		watched = append(watched, secInf.Informer())
	}
	projInf := af.Argoproj().V1alpha1().AppProjects()
	c.projects = projInf.Lister().AppProjects(ns)
	if err := appInf.Informer().AddIndexers(cache.Indexers{byRollout: childIndex}); err != nil {
		return nil, fmt.Errorf("index children: %w", err)
	}
	c.children = childrenOf(appInf.Informer().GetIndexer())
	for _, inf := range append(watched, projInf.Informer()) {
		if _, err := inf.AddEventHandler(a.handler()); err != nil {
			return nil, fmt.Errorf("watch: %w", err)
		}
		c.synced = append(c.synced, inf.HasSynced)
	}
	c.start = func(stop <-chan struct{}) {
		pf.Start(stop)
		// the plans first: the parents they name are cached whole from the first list
		cache.WaitForCacheSync(stop, planInf.Informer().HasSynced)
		a.knowParents()
		af.Start(stop)
		sf.Start(stop)
		cf.Start(stop)
		ff.Start(stop)
	}
	return c, nil
}

// handler maps every watched change to the work it causes.
func (a *Agent) handler() cache.ResourceEventHandler {
	on := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		a.route(obj)
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: on, UpdateFunc: func(_, n any) { on(n) }, DeleteFunc: on}
}

// route enqueues the rollout an object belongs to: a plan or child by its rollout label, a
// state ConfigMap by its name, a parent by its plan; cluster Secrets republish the inventory.
func (a *Agent) route(obj any) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	switch o := obj.(type) {
	case *corev1.Secret:
		a.queue.Add(inventoryKey)
	case *corev1.ConfigMap:
		if o.Name == a.fleetName() {
			_ = a.everyRollout() // a cache List does not fail; each rollout's resync comes anyway
		} else if r := m.GetLabels()[contract.LabelRollout]; r != "" {
			if parent := o.Annotations[contract.AnnotationParent]; parent != "" {
				a.parents.Set(parent, r) // its next change is cached whole (appcache.Parents.Transform)
			}
			a.queue.Add(r)
		} else if r, ok := contract.RolloutOfState(o.Name); ok {
			a.queue.Add(r)
		}
	case *v1alpha1.AppProject:
		_ = a.everyRollout() // its sync windows may hold or release any rollout's children
	case *v1alpha1.Application:
		if a.parents.Has(o.Name) {
			a.cascading.note(o) // parents only: children carry the resources finalizer too
		}
		if r := m.GetLabels()[contract.LabelRollout]; r != "" {
			a.queue.Add(r)
		}
		for _, r := range a.parents.Of(o.Name) {
			a.queue.Add(r)
		}
	}
}
