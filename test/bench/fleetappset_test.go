//go:build e2e

package bench

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argoinformers "github.com/argoproj/argo-cd/v3/pkg/client/informers/externalversions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/test/framework"
)

// peerLabel marks the ApplicationSet peer's children: the stand-in controller treats them
// as Argo CD treats children of a RollingSync (automated sync off).
const peerLabel = "bench-peer"

// peerSpec is the peer: Argo CD's own ApplicationSet over the same clusters (one shard of
// them), its template the fleet spec's children (named peer-…), RollingSync through the
// fleet spec's three phases as waves: 1%, 10% cumulatively, all, each at once.
const peerSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: NAME
  namespace: argocd
spec:
  generators:
  - clusters:
      selector:
        matchLabels:
          argocd.argoproj.io/secret-type: cluster
          env: prod
          shard: "SHARD"
      values:
        version: VERSION
  strategy:
    type: RollingSync
    rollingSync:
      steps:
      - matchExpressions: [{key: wave, operator: In, values: [canary]}]
      - matchExpressions: [{key: wave, operator: In, values: [early]}]
      - matchExpressions: [{key: wave, operator: In, values: [all]}]
  template:
    metadata:
      name: 'peer-{{name}}'
      labels:
        bench-peer: "true"
        wave: '{{metadata.labels.wave}}'
        shard: '{{metadata.labels.shard}}'
    spec:
      project: default
      source:
        repoURL: https://git.example.com/fleet.git
        targetRevision: HEAD
        path: 'fleet/workload/{{values.version}}'
      destination:
        server: '{{server}}'
        namespace: fleet
      syncPolicy:
        automated: {}
`

// peer runs the real argocd-applicationset-controller over the fleet stack's clusters and
// plays the application controller for its children: a child whose spec is not the one
// compared goes OutOfSync (Healthy) at the rollout's commit and stays so until the
// ApplicationSet controller sets an operation, which makes it Synced and Healthy with a
// Succeeded operationState at that commit.
type peer struct {
	f       *fleetStack
	n       int
	proc    *framework.Proc
	rss     peakRSS
	queue   workqueue.TypedRateLimitingInterface[string]
	appsets cache.Indexer
	limit   time.Duration // how long a rollout may take (CMP_PHASE_PEER_LIMIT, default 30m)

	mu      sync.Mutex
	commit  string
	opSeen  map[string]time.Time // child → when its operation was first seen (its sync starts)
	done    map[string]time.Time // child → when its synced status was first written, this rollout
	counted map[string]bool      // children whose ApplicationSet status said Healthy, this rollout
	latency []time.Duration      // synced status written → the ApplicationSet says Healthy
}

func startPeer(ctx context.Context, f *fleetStack, n int) (*peer, error) {
	p := &peer{f: f, n: n, opSeen: map[string]time.Time{}, done: map[string]time.Time{}, counted: map[string]bool{}}
	p.queue = workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Second))
	f.argo.peer.Store(p.on)
	for range 8 {
		go f.argo.work(ctx, p.queue, p.sync)
	}
	go func() { <-ctx.Done(); p.queue.ShutDown() }()
	inf := argoinformers.NewSharedInformerFactoryWithOptions(f.apps, 0, argoinformers.WithNamespace(framework.ArgoNamespace)).
		Argoproj().V1alpha1().ApplicationSets().Informer()
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, n any) { p.onAppSet(n) }, AddFunc: p.onAppSet})
	go inf.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("applicationset informer did not sync")
	}
	p.appsets = inf.GetIndexer()
	ports := make([]int, 3)
	for i := range ports {
		port, err := framework.FreePort()
		if err != nil {
			return nil, fmt.Errorf("peer ports: %w", err)
		}
		ports[i] = port
	}
	// The same client rate as the agent's, and the stand-in's 16 writers: the peer writes
	// its children itself. No repo-server: a cluster generator never asks one.
	proc, err := f.env.StartApplicationSetController("127.0.0.1:1", ports,
		[]string{"--concurrent-application-updates", "16"},
		[]string{"ARGOCD_K8S_CLIENT_QPS=300", "ARGOCD_K8S_CLIENT_BURST=600"})
	if err != nil {
		return nil, fmt.Errorf("start argocd-applicationset-controller: %w", err)
	}
	p.proc = proc
	go p.rss.sample(ctx, proc.PID())
	return p, nil
}

// on is the stand-in's informer handler for the peer's children.
func (p *peer) on(app *v1alpha1.Application) {
	src := app.Spec.GetSource()
	p.mu.Lock()
	if app.Operation != nil {
		if _, ok := p.opSeen[app.Name]; !ok {
			p.opSeen[app.Name] = time.Now()
		}
	}
	stale := app.Status.Sync.Revision != p.commit && p.commit != ""
	p.mu.Unlock()
	if app.Operation != nil || stale || !app.Status.Sync.ComparedTo.Source.Equals(&src) {
		p.queue.Add(app.Name)
	}
}

// sync is what Argo CD's application controller does for the peer's child, with automated
// sync off: compare a new spec (OutOfSync, Healthy), or run the operation asked for.
func (p *peer) sync(ctx context.Context, name string) error {
	app := p.f.argo.app(name)
	if app == nil {
		return nil
	}
	p.mu.Lock()
	commit, seen := p.commit, p.opSeen[name]
	p.mu.Unlock()
	now, src, ran := time.Now(), app.Spec.GetSource(), false
	stamp := metav1.NewTime(now)
	compared := v1alpha1.ComparedTo{Source: src, Destination: app.Spec.Destination}
	switch {
	case app.Operation != nil:
		// Argo CD's timestamps are whole seconds, and RollingSync counts a sync only if it
		// started strictly after the child went Pending (Argo CD PR 13926's race: a sync
		// started in the same second leaves the step stuck for good). The real controller's
		// sync takes longer than that; the stand-in starts in the next second at the earliest.
		if next := seen.Truncate(time.Second).Add(time.Second); now.Before(next) {
			p.queue.AddAfter(name, next.Sub(now)+5*time.Millisecond)
			return nil
		}
		op := *app.Operation
		ran = true
		app.Operation = nil
		app.Status.Sync = v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeSynced, Revision: commit, ComparedTo: compared}
		app.Status.OperationState = &v1alpha1.OperationState{Operation: op, Phase: "Succeeded", Message: "successfully synced",
			SyncResult: &v1alpha1.SyncOperationResult{Revision: commit, Source: src}, StartedAt: stamp, FinishedAt: &stamp}
	case app.Status.Sync.Revision != commit || !app.Status.Sync.ComparedTo.Source.Equals(&src):
		app.Status.Sync = v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeOutOfSync, Revision: commit, ComparedTo: compared}
	default:
		return nil
	}
	app.Status.Health.Status = "Healthy"
	app.Status.ReconciledAt = &stamp
	if _, err := p.f.apps.ArgoprojV1alpha1().Applications(framework.ArgoNamespace).Update(ctx, app, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("peer child %s: %w", name, err)
	}
	if ran {
		p.mu.Lock()
		if _, ok := p.done[name]; !ok { // its first sync of the rollout: a step is over when each member first synced
			p.done[name] = time.Now()
		}
		p.mu.Unlock()
	}
	return nil
}

// onAppSet counts, for each child the ApplicationSet's status shows Healthy for the first
// time this rollout, the time since its synced status was written.
func (p *peer) onAppSet(obj any) {
	set, ok := obj.(*v1alpha1.ApplicationSet)
	if !ok {
		return
	}
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range set.Status.ApplicationStatus {
		at, ok := p.done[st.Application]
		if st.Status != v1alpha1.ProgressiveSyncHealthy || !ok || p.counted[st.Application] {
			continue
		}
		p.counted[st.Application] = true
		p.latency = append(p.latency, now.Sub(at))
	}
}

func (p *peer) names() []string {
	var names []string
	for k := range p.f.shards {
		names = append(names, "peer-"+strconv.Itoa(k))
	}
	return names
}

// rollout makes every shard's ApplicationSet generate version v (the first creates them)
// and waits until RollingSync is over: every child Healthy in its status at the commit.
func (p *peer) rollout(ctx context.Context, v int) (time.Duration, error) {
	version := "v" + strconv.Itoa(v)
	sum := sha1.Sum([]byte(version))
	p.mu.Lock()
	p.commit = hex.EncodeToString(sum[:])
	p.opSeen, p.done, p.counted = map[string]time.Time{}, map[string]time.Time{}, map[string]bool{}
	p.mu.Unlock()
	began := time.Now()
	for k, name := range p.names() {
		if err := p.apply(ctx, name, k, version); err != nil {
			return 0, err
		}
	}
	deadline := time.Now().Add(p.limit)
	for {
		healthy, total := p.progress()
		if total == p.n && healthy == p.n {
			return time.Since(began), nil
		}
		if time.Now().After(deadline) {
			return time.Since(began), fmt.Errorf("peer rollout of %s: %d of %d children Healthy at the commit after %s", version, healthy, p.n, p.limit)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// progress counts the ApplicationSets' children Healthy in their status at the commit.
func (p *peer) progress() (healthy, total int) {
	p.mu.Lock()
	commit := p.commit
	p.mu.Unlock()
	for _, obj := range p.appsets.List() {
		set := obj.(*v1alpha1.ApplicationSet)
		for _, st := range set.Status.ApplicationStatus {
			total++
			if st.Status == v1alpha1.ProgressiveSyncHealthy && len(st.TargetRevisions) == 1 && st.TargetRevisions[0] == commit {
				healthy++
			}
		}
	}
	return healthy, total
}

// apply creates shard k's ApplicationSet at version, or sets the version of the one there.
func (p *peer) apply(ctx context.Context, name string, k int, version string) error {
	body := strings.NewReplacer("NAME", name, "SHARD", strconv.Itoa(k), "VERSION", version).Replace(peerSpec)
	var want v1alpha1.ApplicationSet
	if err := yaml.Unmarshal([]byte(body), &want); err != nil {
		return fmt.Errorf("peer spec: %w", err)
	}
	sets := p.f.apps.ArgoprojV1alpha1().ApplicationSets(framework.ArgoNamespace)
	for attempt := 0; ; attempt++ {
		cur, err := sets.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			if _, err := sets.Create(ctx, &want, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create %s: %w", name, err)
			}
			return nil
		}
		cur.Spec = want.Spec
		if _, err = sets.Update(ctx, cur, metav1.UpdateOptions{}); err == nil || attempt == 5 {
			if err != nil {
				return fmt.Errorf("update %s: %w", name, err)
			}
			return nil
		}
	}
}

// hops is each step boundary's hop on the peer, in each shard's ApplicationSet (they walk
// their steps apart): its last child synced → the next step's first child asked to sync.
func (p *peer) hops() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []time.Duration
	for k := range p.f.shards {
		member := func(child string) int {
			app := p.f.argo.app(child)
			if app == nil || app.Labels["shard"] != strconv.Itoa(k) {
				return -1
			}
			return map[string]int{"canary": 0, "early": 1, "all": 2}[app.Labels["wave"]]
		}
		out = append(out, stepHops(p.done, p.opSeen, member)...)
	}
	return out
}

// stepHops is, for each step k with a step k+1, the time from the last of k's members done
// to the first of k+1's started (negative when k+1 started before k was over).
func stepHops(done, started map[string]time.Time, step func(child string) int) []time.Duration {
	lastDone, firstStart := map[int]time.Time{}, map[int]time.Time{}
	for c, at := range done {
		if k := step(c); k >= 0 && at.After(lastDone[k]) {
			lastDone[k] = at
		}
	}
	for c, at := range started {
		if k := step(c); k >= 0 && (firstStart[k].IsZero() || at.Before(firstStart[k])) {
			firstStart[k] = at
		}
	}
	var out []time.Duration
	for k := 0; ; k++ {
		from, ok1 := lastDone[k]
		to, ok2 := firstStart[k+1]
		if !ok1 || !ok2 {
			return out
		}
		out = append(out, to.Sub(from))
	}
}

func (p *peer) quantiles() (p50, p99 time.Duration, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return quantile(p.latency, 0.5), quantile(p.latency, 0.99), len(p.latency)
}
