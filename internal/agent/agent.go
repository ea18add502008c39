package agent

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/cmp-phase/cmp-phase/internal/agent/appcache"
	"github.com/cmp-phase/cmp-phase/internal/agent/argoapi"
	"github.com/cmp-phase/cmp-phase/internal/agent/clustersource"
	"github.com/cmp-phase/cmp-phase/internal/agent/failure"
	"github.com/cmp-phase/cmp-phase/internal/agent/hookrun"
	"github.com/cmp-phase/cmp-phase/internal/agent/passmemo"
	"github.com/cmp-phase/cmp-phase/internal/agent/warm"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/plan"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/targets"
	"github.com/cmp-phase/cmp-phase/internal/telemetry"
)

// inventoryKey is the work-queue key that republishes the inventory; every other key is a
// rollout name.
const inventoryKey = "\x00inventory"

// Options configure an agent; the zero value of a field means its default.
type Options struct {
	Namespace string        // of Applications, cluster Secrets and cmp-phase ConfigMaps
	Resync    time.Duration // informer resync: every rollout is reconciled at least this often
	// ConfirmAfter is how long the agent waits for a re-render it asked for (the plan's
	// generation annotation) before asking again.
	ConfirmAfter time.Duration
	// PollParents is how often the agent asks Argo CD to refresh the parents it drives, so
	// a commit is seen within it without a webhook (0: never; Argo CD's own polling only).
	PollParents time.Duration
	// HardRefresh asks for a hard refresh of the parent when a re-render did not arrive in
	// ConfirmAfter, on top of setting PHASE_GEN again.
	HardRefresh bool
	Workers     int
	// Selector (a label selector over plan ConfigMaps, e.g. cmp-phase.io/rollout=guestbook)
	// shards rollouts between agents; empty means every rollout in the namespace.
	Selector string
	// FleetConfigMap names the fleet ConfigMap whose stop-all key pauses every rollout this
	// agent drives (default contract.FleetConfigMap; shards may share it or have their own).
	FleetConfigMap string
	// Hooks bound what hooks may do (command directories, private addresses, …).
	Hooks hooks.Limits
	// Backoff is failurePolicy: retry's (default hooks.DefaultBackoff).
	Backoff hooks.Backoff
	// HooksPerHost caps the HTTP hooks running at once against one host (default 4).
	HooksPerHost int
	// Limits are the installation's caps on hooks (timeouts, variables, headers, response
	// body, hooks and checks at once per phase); zero fields are seed 000's. A hook over one
	// is held: the rollout waits there, saying which setting to raise.
	Limits spec.Limits
	// SecretNamespace is where hook secret references are read (default Namespace).
	SecretNamespace string
	// RemovalGrace is how long a cluster whose Secret is gone keeps its children before
	// they are removed (default 10 minutes).
	RemovalGrace time.Duration
	// Metrics is where the agent registers its Prometheus metrics (nil: not registered).
	Metrics prometheus.Registerer
	// ArgoCD, when set, is argocd-server's API: the agent asks it for the manifests of the
	// children a rollout admits next, so they are cached when they move (warm.go).
	ArgoCD *argoapi.Client
	// InventoryFrom is where the clusters are read from: clustersource.FromSecrets (the
	// default: the cluster Secrets, watched) or clustersource.FromArgoCD (argocd-server's
	// cluster API through ArgoCD, every InventoryPoll: no list or watch on Secrets).
	InventoryFrom string
	// InventoryPoll is how often argocd-server's clusters are read (default 30 s).
	InventoryPoll time.Duration
}

func (o Options) withDefaults() Options {
	if o.Namespace == "" {
		o.Namespace = contract.DefaultNamespace
	}
	if o.Resync <= 0 {
		o.Resync = 5 * time.Minute
	}
	if o.ConfirmAfter <= 0 {
		o.ConfirmAfter = 30 * time.Second
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.RemovalGrace <= 0 {
		o.RemovalGrace = 10 * time.Minute
	}
	if o.Backoff.For <= 0 {
		o.Backoff = hooks.DefaultBackoff
	}
	if o.HooksPerHost <= 0 {
		o.HooksPerHost = 4
	}
	if o.InventoryFrom == "" {
		o.InventoryFrom = clustersource.FromSecrets
	}
	if o.InventoryPoll <= 0 {
		o.InventoryPoll = 30 * time.Second
	}
	if o.SecretNamespace == "" {
		o.SecretNamespace = o.Namespace
	}
	o.Limits = o.Limits.OrDefaults()
	o.Hooks.Caps = o.Limits
	return o
}

// Faults lets a test stop the agent at the points a crash matters: right before and right
// after a state write, right after asking the parent to re-render, right after moving a
// child. Nil fields do nothing.
type Faults struct {
	BeforeWrite   func(rollout string, generation int64)
	AfterWrite    func(rollout string, generation int64)
	AfterRerender func(rollout string, generation int64)
	AfterMove     func(rollout, child string)
}

// Agent drives the rollouts of one namespace.
type Agent struct {
	kube     kubernetes.Interface
	argo     argoclient.Interface
	opts     Options
	log      *slog.Logger
	events   record.EventRecorder
	faults   Faults
	synced   atomic.Bool // Run's caches synced (Synced)
	renderer *render.Renderer
	exprs    *targets.Cache
	queue    workqueue.TypedRateLimitingInterface[string]
	caches   *caches
	// cascading: parents the watch saw deleted with the resources finalizer on.
	cascading cascadeMemory
	parents   appcache.Parents
	live      appcache.Live // parents read from the API server while cached by name (steered.go)
	memories  passmemo.Set  // what each rollout's last pass read and did
	now       func() time.Time
	runs      *hookrun.Runs // the hook runs of this process
	metrics   *telemetry.AgentMetrics
	warm      *warm.Warmer // nil without Options.ArgoCD

	mu       sync.Mutex
	inv      *inventory.Inventory // last published
	invBytes []byte               // its encoding, to tell a change
	asked    map[string]named     // rollout → the re-render it last asked for
}

// utcNow is the agent's clock: wall time in UTC, without the monotonic reading, exactly as
// a decoded state holds it — the state a Store remembers (statestore.Memo) and one decoded from
// its bytes compare and measure time alike.
func utcNow() time.Time { return time.Now().UTC() }

// memoryOf is the rollout's memory (passmemo), made on first use.
func (a *Agent) memoryOf(name string) *passmemo.Memory { return a.memories.Of(name) }

// forget drops what the agent remembers of a rollout (its plan is gone).
func (a *Agent) forget(name string) {
	a.memories.Forget(name)
	a.warm.Forget(name)
}

// New makes an agent. events may be nil (no Kubernetes Events).
func New(kube kubernetes.Interface, argo argoclient.Interface, opts Options, log *slog.Logger, events record.EventRecorder, faults Faults) *Agent {
	opts = opts.withDefaults()
	if events == nil {
		events = &record.FakeRecorder{}
	}
	a := &Agent{
		kube: kube, argo: argo, opts: opts, log: log, events: events, faults: faults,
		renderer: render.New(64), exprs: targets.NewCache(1024), now: utcNow,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "cmp-phase-agent"}),
		asked:   map[string]named{},
		metrics: telemetry.NewAgentMetrics(opts.Metrics),
	}
	a.warm = warm.New(opts.ArgoCD, opts.Metrics)
	runner := hooks.New(opts.Hooks).WithClusters(hooks.Clusters{Kube: kube, Namespace: opts.Namespace, Argo: argo, SecretName: a.clusterSecretName,
		OwnName: a.clusterOwnName, ProjectClusters: a.projectClusters, Log: log})
	a.runs = hookrun.New(runner, hookrun.Options{Backoff: opts.Backoff, PerHost: opts.HooksPerHost, Kube: kube,
		SecretNamespace: opts.SecretNamespace, Metrics: a.metrics, Log: log})
	return a
}

// Synced reports whether Run's caches have synced and it works the queue (readiness).
func (a *Agent) Synced() bool { return a.synced.Load() }

// Run watches, and works the queue until ctx ends; it returns after the workers stopped.
func (a *Agent) Run(ctx context.Context) error {
	if a.opts.InventoryFrom == clustersource.FromArgoCD && a.opts.ArgoCD == nil {
		return fmt.Errorf("--inventory-from %s reads argocd-server's clusters (fix: set --argocd-server and --argocd-token-file)", clustersource.FromArgoCD)
	}
	c, err := a.newCaches(a.opts.Resync)
	if err != nil {
		return err
	}
	a.caches = c
	c.start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return fmt.Errorf("caches did not sync: %w", ctx.Err())
	}
	a.synced.Store(true)
	defer a.synced.Store(false)
	a.log.Info("agent started", "namespace", a.opts.Namespace, "workers", a.opts.Workers)
	if next, err := a.publish(ctx); err != nil { // rollouts need the inventory: publish it first
		a.fail(inventoryKey, a.logFor(inventoryKey), err)
	} else if !next.IsZero() {
		a.queue.AddAfter(inventoryKey, max(next.Sub(a.now()), 0))
	}
	var wg sync.WaitGroup
	if a.opts.PollParents > 0 {
		wg.Go(func() { a.pollParents(ctx, a.opts.PollParents) })
	}
	if a.warm != nil {
		wg.Go(func() { a.warm.Run(ctx, a.log.With("work", "warm")) })
	}
	for range a.opts.Workers {
		wg.Go(func() {
			for a.work(ctx) {
			}
		})
	}
	<-ctx.Done()
	a.queue.ShutDownWithDrain()
	wg.Wait()
	a.log.Info("agent stopped")
	return nil
}

// work takes one key off the queue and handles it; false when the queue shut down.
func (a *Agent) work(ctx context.Context) bool {
	key, quit := a.queue.Get()
	if quit {
		return false
	}
	defer a.queue.Done(key)
	log := a.logFor(key)
	var at time.Time
	var err error
	if key == inventoryKey {
		at, err = a.publish(ctx)
	} else {
		at, err = a.reconcile(ctx, key, log)
	}
	switch {
	case err != nil && ctx.Err() == nil:
		a.fail(key, log, err)
	case err == nil:
		a.queue.Forget(key)
		if !at.IsZero() {
			a.queue.AddAfter(key, max(at.Sub(a.now()), 0)+10*time.Millisecond)
		}
	}
	return true
}

// fail does what a failure's policy says: one log line, its Warning Event on the rollout's
// parent when it has one, and the requeue.
func (a *Agent) fail(key string, log *slog.Logger, err error) {
	pol := failure.PolicyOf(err)
	log.Log(context.Background(), pol.Level, "reconcile failed", "kind", pol.Kind, "error", err)
	if pol.Event != "" && key != inventoryKey {
		if ref := a.rolloutRef(key); ref != nil {
			a.events.Event(ref, corev1.EventTypeWarning, pol.Event, err.Error())
		}
	}
	if poll := a.opts.InventoryPoll; key == inventoryKey && a.opts.InventoryFrom == clustersource.FromArgoCD {
		a.queue.AddAfter(key, poll) // no watch brings it back sooner, and no backoff past the poll
		return
	}
	switch pol.Requeue {
	case failure.Backoff:
		a.queue.AddRateLimited(key)
		return
	case failure.Soon:
		a.queue.AddAfter(key, failure.RetrySoon)
	case failure.Slowly:
		a.queue.AddAfter(key, failure.RetrySlowly)
	}
	a.queue.Forget(key)
}

// logFor is the logger of one work item, bound to its rollout.
func (a *Agent) logFor(key string) *slog.Logger {
	if key == inventoryKey {
		return a.log.With("work", "inventory")
	}
	return a.log.With("rollout", key)
}

// rolloutRef is the parent of a rollout, as its plan in the cache names it, as an Event's
// involved object; nil when no plan names one.
func (a *Agent) rolloutRef(name string) *corev1.ObjectReference {
	cm, err := a.caches.plans.Get(contract.PlanConfigMap(name))
	if err != nil || cm.Annotations[contract.AnnotationParent] == "" {
		return nil
	}
	p := &pass{plan: &plan.Plan{Parent: cm.Annotations[contract.AnnotationParent]}}
	p.parent, _ = a.caches.apps.Get(p.plan.Parent) // an Event needs its name and UID: a name-only copy has them
	return a.parentRef(p)
}
