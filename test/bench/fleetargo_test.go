//go:build e2e

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	argoinformers "github.com/argoproj/argo-cd/v3/pkg/client/informers/externalversions"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// argo plays Argo CD's application controller for the fleet benchmark, at a size the real
// one could not run on the build machine: a parent whose PHASE_GEN changes is rendered by
// the real sidecar over its socket (as the repo-server asks it) and its output applied (the
// plan, new children, changed children), then the parent is marked compared and synced; a
// child that is new, changed or has an operation is marked synced and Healthy, as an
// automated sync that succeeds would leave it.
type argo struct {
	env      *framework.Env
	kube     kubernetes.Interface
	apps     argoclient.Interface
	plugin   *framework.PluginClient
	root     string // the repository the parents render
	commit   string // the commit they render
	children workqueue.TypedRateLimitingInterface[string]
	parents  workqueue.TypedRateLimitingInterface[string]
	cache    cache.Indexer
	m        *fleetRecord

	peer atomic.Value // func(*v1alpha1.Application): the ApplicationSet peer's children go there

	mu       sync.Mutex
	rendered map[string]string // parent → the plugin env it last rendered
}

func (a *argo) start(ctx context.Context) error {
	rl := func() workqueue.TypedRateLimiter[string] {
		return workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Second)
	}
	a.children = workqueue.NewTypedRateLimitingQueue(rl())
	a.parents = workqueue.NewTypedRateLimitingQueue(rl())
	a.rendered = map[string]string{}
	f := argoinformers.NewSharedInformerFactoryWithOptions(a.apps, 0, argoinformers.WithNamespace(framework.ArgoNamespace))
	inf := f.Argoproj().V1alpha1().Applications().Informer()
	on := func(obj any) {
		app, ok := obj.(*v1alpha1.Application)
		if !ok {
			return
		}
		if app.Labels[peerLabel] != "" {
			if h, ok := a.peer.Load().(func(*v1alpha1.Application)); ok {
				h(app)
			}
			return
		}
		if app.Labels[contract.LabelRollout] != "" {
			if childNeedsSync(app) {
				a.children.Add(app.Name)
			}
			return
		}
		a.parents.Add(app.Name)
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: on, UpdateFunc: func(_, n any) { on(n) }})
	go inf.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("application informer did not sync")
	}
	a.cache = inf.GetIndexer()
	for range 8 {
		go a.work(ctx, a.children, a.syncChild)
	}
	go a.work(ctx, a.parents, a.syncParent)
	go func() { <-ctx.Done(); a.children.ShutDown(); a.parents.ShutDown() }()
	return nil
}

func (a *argo) work(ctx context.Context, q workqueue.TypedRateLimitingInterface[string], f func(context.Context, string) error) {
	for {
		name, quit := q.Get()
		if quit {
			return
		}
		if err := f(ctx, name); err != nil && ctx.Err() == nil {
			q.AddRateLimited(name)
		} else {
			q.Forget(name)
		}
		q.Done(name)
	}
}

func (a *argo) app(name string) *v1alpha1.Application {
	obj, ok, _ := a.cache.GetByKey(framework.ArgoNamespace + "/" + name)
	if !ok {
		return nil
	}
	return obj.(*v1alpha1.Application).DeepCopy()
}

// childNeedsSync: an operation waits, or the status does not compare the spec, Synced and Healthy.
func childNeedsSync(app *v1alpha1.Application) bool {
	st, src := app.Status, app.Spec.GetSource()
	return app.Operation != nil || st.Sync.Status != v1alpha1.SyncStatusCodeSynced || st.Health.Status != "Healthy" ||
		!st.Sync.ComparedTo.Source.Equals(&src)
}

// syncChild leaves a child as a successful sync of its spec does (one update, as the
// controller's: status and no operation).
func (a *argo) syncChild(ctx context.Context, name string) error {
	app := a.app(name)
	if app == nil || !childNeedsSync(app) {
		return nil
	}
	now := metav1.Now()
	op := v1alpha1.Operation{Sync: &v1alpha1.SyncOperation{}, InitiatedBy: v1alpha1.OperationInitiator{Automated: true}}
	if app.Operation != nil {
		op = *app.Operation
	}
	src := app.Spec.GetSource()
	app.Operation = nil
	app.Status.Sync = v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeSynced, Revision: a.commit,
		ComparedTo: v1alpha1.ComparedTo{Source: src, Destination: app.Spec.Destination}}
	app.Status.Health.Status = "Healthy"
	app.Status.ReconciledAt = &now
	app.Status.OperationState = &v1alpha1.OperationState{Operation: op, Phase: "Succeeded", Message: "successfully synced",
		SyncResult: &v1alpha1.SyncOperationResult{Revision: a.commit, Source: src}, StartedAt: now, FinishedAt: &now}
	if _, err := a.apps.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Update(ctx, app, metav1.UpdateOptions{}); err != nil {
		return err
	}
	a.m.synced(name, time.Now())
	return nil
}

// envOf is what the repo-server sends the plugin for a parent.
func (a *argo) envOf(parent *v1alpha1.Application) (envs []string, key string) {
	src := parent.Spec.GetSource()
	envs = []string{contract.EnvAppName + "=" + parent.Name, contract.EnvAppNamespace + "=" + parent.Spec.Destination.Namespace,
		contract.EnvAppRevision + "=" + a.commit, contract.EnvAppSourceRepoURL + "=" + src.RepoURL,
		contract.EnvAppSourcePath + "=" + src.Path, contract.EnvAppSourceTargetRevision + "=" + src.TargetRevision}
	var plugin []string
	if src.Plugin != nil {
		for _, e := range src.Plugin.Env {
			plugin = append(plugin, contract.EnvPrefix+e.Name+"="+e.Value)
		}
	}
	return append(envs, plugin...), strings.Join(plugin, ",") + "@" + a.commit
}

// syncParent renders a parent whose plugin env or commit changed and applies the render.
func (a *argo) syncParent(ctx context.Context, name string) error {
	parent := a.app(name)
	if parent == nil || parent.Spec.Source == nil || parent.Spec.Source.Plugin == nil {
		return nil
	}
	a.mu.Lock()
	envs, key := a.envOf(parent)
	done := a.rendered[name] == key
	a.mu.Unlock()
	if done {
		return nil
	}
	began := time.Now()
	manifests, err := a.plugin.Render(ctx, a.root, filepath.Join(a.root, parent.Spec.Source.Path), envs)
	if err != nil {
		return err
	}
	a.m.rendered(time.Since(began))
	if err := a.apply(ctx, manifests); err != nil {
		return err
	}
	now := metav1.Now()
	src := parent.Spec.Source.DeepCopy()
	parent.Status.Sync = v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeSynced, Revision: a.commit,
		ComparedTo: v1alpha1.ComparedTo{Source: *src, Destination: parent.Spec.Destination}}
	parent.Status.Health.Status = "Healthy"
	parent.Status.ReconciledAt = &now
	parent.Status.OperationState = &v1alpha1.OperationState{Operation: v1alpha1.Operation{Sync: &v1alpha1.SyncOperation{Source: src}},
		Phase: "Succeeded", SyncResult: &v1alpha1.SyncOperationResult{Revision: a.commit, Source: *src}, StartedAt: now, FinishedAt: &now}
	if _, err := a.apps.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Update(ctx, parent, metav1.UpdateOptions{}); err != nil {
		return err
	}
	a.mu.Lock()
	a.rendered[name] = key
	a.mu.Unlock()
	return nil
}

// apply creates or updates what a render holds: the plan ConfigMap and the children (only
// those whose spec, labels or annotations differ: ApplyOutOfSyncOnly).
func (a *argo) apply(ctx context.Context, manifests []string) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(manifests))
	sem := make(chan struct{}, 16)
	for _, m := range manifests {
		var meta metav1.TypeMeta
		if err := json.Unmarshal([]byte(m), &meta); err != nil {
			return fmt.Errorf("manifest: %w", err)
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			var err error
			if meta.Kind == "ConfigMap" {
				err = a.applyConfigMap(ctx, m)
			} else {
				err = a.applyChild(ctx, m)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func (a *argo) applyConfigMap(ctx context.Context, m string) error {
	var cm corev1.ConfigMap
	if err := json.Unmarshal([]byte(m), &cm); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	cms := a.kube.CoreV1().ConfigMaps(cm.Namespace)
	cur, err := cms.Get(ctx, cm.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = cms.Create(ctx, &cm, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	cur.Data, cur.BinaryData, cur.Labels, cur.Annotations = cm.Data, cm.BinaryData, cm.Labels, cm.Annotations
	_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
	return err
}

func (a *argo) applyChild(ctx context.Context, m string) error {
	var want v1alpha1.Application
	if err := json.Unmarshal([]byte(m), &want); err != nil {
		return fmt.Errorf("child: %w", err)
	}
	apps := a.apps.ArgoprojV1alpha1().Applications(framework.ArgoNamespace)
	cur := a.app(want.Name)
	if cur == nil {
		want.Namespace = framework.ArgoNamespace
		_, err := apps.Create(ctx, &want, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("child %s: not in the cache yet", want.Name)
		}
		return err
	}
	curSrc, wantSrc := cur.Spec.GetSource(), want.Spec.GetSource()
	same := curSrc.Equals(&wantSrc) && cur.Spec.Destination == want.Spec.Destination &&
		sameValues(want.Labels, cur.Labels) && sameValues(want.Annotations, cur.Annotations)
	if same {
		return nil
	}
	cur.Spec = want.Spec
	cur.Labels, cur.Annotations = merged(cur.Labels, want.Labels), merged(cur.Annotations, want.Annotations)
	_, err := apps.Update(ctx, cur, metav1.UpdateOptions{})
	return err
}

// sameValues: every key of want has its value in have.
func sameValues(want, have map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

func merged(have, want map[string]string) map[string]string {
	if have == nil {
		have = map[string]string{}
	}
	for k, v := range want {
		have[k] = v
	}
	return have
}
